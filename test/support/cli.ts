/**
 * Runs the CLI as a test would from a shell: `runCli` gives its exit code, stdout and stderr.
 *
 * By default a command runs in this test process, as src/cli/main.ts runs it: the same program,
 * its environment reduced to what a child would get (PATH, NO_COLOR and the test's env), the
 * working directory changed for the run, stdin a closed pipe. Starting Node and loading the CLI's
 * modules is most of a child's cost (about 0.5 s, more on a loaded machine), and the suite runs
 * hundreds of commands. The built binary (dist/, made by `npm test` before vitest) is run as a
 * child process:
 * - in files that call `cliInChildProcesses()` (those that test the process itself: exit codes,
 *   the entry point, the packed binary);
 * - for a command started while another runs in this process (a lock contended, two applies at
 *   once: two processes, as in real life);
 * - everywhere with OBSYNC_TEST_CLI=process.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { CommanderError } from 'commander';
import { afterAll } from 'vitest';
import { ExitRequest, outputWriter, reportError, type CliIO } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { scrubber } from '../../src/core/scrub.js';

export const CLI = resolve(import.meta.dirname, '../../dist/cli/main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string>;
  input?: string;
}

let childOnly = process.env.OBSYNC_TEST_CLI === 'process';
let running = false;

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it) before the integration tests`);
}

/** Every `runCli` of the calling test file starts the built binary as a child process. */
export function cliInChildProcesses(): void {
  childOnly = true;
  // Test files may share this module (vitest's isolate: false): the next file starts from the default.
  afterAll(() => {
    childOnly = process.env.OBSYNC_TEST_CLI === 'process';
  });
}

export async function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  if (childOnly || running) return runCliProcess(args, opts);
  running = true;
  try {
    return await runCliHere(args, opts);
  } finally {
    running = false;
  }
}

/** The environment a child gets: PATH, NO_COLOR and the test's own. */
function childEnv(opts: CliOptions): Record<string, string> {
  return { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...opts.env };
}

export function runCliProcess(args: string[], opts: CliOptions): Promise<CliResult> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: opts.cwd, env: childEnv(opts), maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** A stream that keeps what is written to it, synchronously (a pipe, as a child's stdout is). */
function collector(): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => chunks.join('') };
}

/** Replaces the process's environment with `env` (vitest's own variables kept); returns the undo. */
function swapEnv(env: Record<string, string>): () => void {
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) if (!key.startsWith('VITEST')) delete process.env[key];
  Object.assign(process.env, env);
  return () => {
    for (const key of Object.keys(process.env)) delete process.env[key];
    Object.assign(process.env, saved);
  };
}

async function runCliHere(args: string[], opts: CliOptions): Promise<CliResult> {
  const env = childEnv(opts);
  const out = collector();
  const err = collector();
  const stdin = new PassThrough();
  stdin.end(opts.input ?? '');
  const io: CliIO = { stdout: outputWriter(out.stream), stderr: outputWriter(err.stream), stdin, terminal: err.stream, env, cwd: opts.cwd };
  const restoreEnv = swapEnv(env);
  // A process starts knowing no secret: those other tests of this worker registered are set aside.
  const restoreSecrets = scrubber.setAside();
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  process.chdir(opts.cwd);
  process.exitCode = undefined;
  try {
    const code = await runProgram(io, args);
    // A command may set the exit code as main.ts does (healthcheck).
    const set = Number(process.exitCode ?? 0);
    return { code: code !== 0 ? code : set, stdout: out.text(), stderr: err.text() };
  } finally {
    process.exitCode = exitCode;
    process.chdir(cwd);
    restoreSecrets();
    restoreEnv();
  }
}

/** src/cli/main.ts's body, with the test's streams. */
async function runProgram(io: CliIO, args: string[]): Promise<number> {
  try {
    await (await buildProgram(io, args)).parseAsync(args, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof ExitRequest) return e.exitCode;
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    reportError(io, e, io.env.OBSYNC_DEBUG === '1');
    return 1;
  }
}

/**
 * The CLI as a child process. A daemon (`run`) draws no status-page pictures unless `previews` asks
 * for them: loading the renderer and drawing cost every daemon test seconds of CPU for a page no test
 * but the pictures' own looks at (test/daemon/visibility.test.ts; the default is on for users).
 */
export function spawnCli(args: string[], opts: { cwd: string; env?: Record<string, string>; previews?: boolean }): ChildProcess {
  if (args[0] === 'run' && opts.previews !== true && !args.includes('--no-previews')) args = [...args, '--no-previews'];
  return spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: childEnv(opts),
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
