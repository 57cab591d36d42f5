/**
 * Runs one case of a measure in a process of its own, so that what it reports as peak RSS is its
 * own: a process's RSS keeps the high-water mark of whatever ran in it before (V8 returns memory
 * to the system slowly), and a case measured after a larger one would carry the larger one's peak.
 * The smoke judges no figure, so there a case runs in this process: a fork per case loaded all of
 * obsync again, most of the smoke's CPU in the test suite.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { BenchContext, Result } from './measure.js';

export interface CaseRequest {
  /** The measure module (bench/measures/<module>.js) whose exported `cases[name]` runs. */
  module: string;
  name: string;
  args: unknown;
  profile: boolean;
  root: string;
}

type Case = (args: never, ctx: BenchContext) => Promise<void>;

export async function inFreshProcess(request: Omit<CaseRequest, 'profile' | 'root'>, ctx: BenchContext): Promise<void> {
  if (ctx.mode === 'smoke') return inThisProcess(request, ctx);
  const child = fork(join(import.meta.dirname, 'case-child.js'), [JSON.stringify({ ...request, profile: ctx.profile, root: ctx.root })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const rows: Result[] = [];
  let failure: string | undefined;
  child.on('message', (m: { row?: Result; error?: string }) => {
    if (m.row) rows.push(m.row);
    if (m.error) failure = m.error;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (failure !== undefined || code !== 0)
    throw new Error(`bench: ${request.module} ${request.name} failed in its process (exit ${String(code)}): ${failure ?? ''}`);
  for (const row of rows) ctx.record(row);
}

/** A measure module's exported case by name. */
export async function loadCase(module: string, name: string): Promise<Case> {
  const loaded = (await import(`./measures/${module}.js`)) as { cases?: Record<string, Case> };
  const run = loaded.cases?.[name];
  if (!run) throw new Error(`no case ${name} in bench/measures/${module}`);
  return run;
}

async function inThisProcess(request: Omit<CaseRequest, 'profile' | 'root'>, ctx: BenchContext): Promise<void> {
  const run = await loadCase(request.module, request.name);
  await run(request.args as never, ctx);
}
