/** Runs the built CLI (dist/, made by `npm test` before vitest) as a child process. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const CLI = resolve(import.meta.dirname, '../../dist/cli/main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it) before the integration tests`);
}

export function runCli(args: string[], opts: { cwd: string; env?: Record<string, string>; input?: string }): Promise<CliResult> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: opts.cwd, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...opts.env }, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

export function spawnCli(args: string[], opts: { cwd: string; env?: Record<string, string> }): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The record `obsync run` logs when it cannot start (its stderr is JSON lines): its error, hint and code. */
export function runFailure(stderr: string): { error: string; hint?: string; code?: string } {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const record = JSON.parse(line) as { msg?: string; error?: string; hint?: string; code?: string };
    if (record.msg === 'obsync run failed' && typeof record.error === 'string') return { ...record, error: record.error };
  }
  throw new Error(`no 'obsync run failed' record in:\n${stderr}`);
}
