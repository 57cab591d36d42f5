/**
 * Runs one case of a measure in a process of its own, so that what it reports as peak RSS is its
 * own: a process's RSS keeps the high-water mark of whatever ran in it before (V8 returns memory
 * to the system slowly), and a case measured after a larger one would carry the larger one's peak.
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

export async function inFreshProcess(request: Omit<CaseRequest, 'profile' | 'root'>, ctx: BenchContext): Promise<void> {
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
