/**
 * The `git` command line, as write-back runs it (issue 41: no hand-written Git protocol). Always
 * an argument array, never a shell. The process environment is built here from a few given
 * variables only: no system or user Git configuration is read (a credential helper there could
 * store the token on disk), prompts are off, hooks are off. The forge token reaches Git as an
 * `http.<repository>.extraHeader` through GIT_CONFIG_COUNT/KEY/VALUE in the child's environment:
 * never in its arguments (what `ps` shows), the URL, or a config file on disk. Git's own messages
 * pass the one scrubber before they go into an error.
 */
import { spawn } from 'node:child_process';
import { ObsyncError } from '../core/errors.js';
import { setOwn } from '../core/json.js';
import { scrub } from '../core/scrub.js';
import type { Secret } from '../core/secret.js';

/** The most output one git command may give (a blob of a manifest file, a log); more fails the command. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface GitCall {
  /** Text on the command's standard input. */
  input?: string | undefined;
  /** A non-zero exit is returned instead of thrown. */
  allowFailure?: boolean | undefined;
  /** Extra environment of this call (GIT_INDEX_FILE). */
  env?: Readonly<Record<string, string>> | undefined;
}

/** Runs `git ARGS` in the clone; the seam tests wrap (a concurrent push between two calls). */
export type Git = (args: readonly string[], call?: GitCall) => Promise<GitResult>;

export class GitError extends ObsyncError {
  override readonly name = 'GitError';
  constructor(
    readonly command: string,
    readonly exitCode: number,
    stderr: string,
    hint?: string,
  ) {
    super(
      'GIT',
      `git ${command} failed (exit ${exitCode}): ${scrub(lastLines(stderr)) || 'no message'}`,
      hint === undefined ? {} : { hint },
    );
  }
}

export interface GitRunnerOptions {
  /** The working directory of every command (obsync's own clone). */
  cwd: string;
  /** PATH (to find git) and HOME (ssh keys and known hosts); nothing else of the caller's environment is passed. */
  path: string | undefined;
  home: string | undefined;
  author: { name: string; email: string };
  /** Sent as an HTTP Authorization header to the repository (and only to it), for pushing and fetching over HTTPS. */
  auth?: { repository: string; header: Secret } | undefined;
  timeoutMs?: number;
  /** The executable (tests: a wrapper that records its arguments). */
  executable?: string;
}

export function gitRunner(opts: GitRunnerOptions): Git {
  const base = gitEnvironment(opts);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return (args, call = {}) =>
    new Promise<GitResult>((resolvePromise, reject) => {
      const command = args.find((a) => !a.startsWith('-')) ?? '';
      const child = spawn(opts.executable ?? 'git', [...args], {
        cwd: opts.cwd,
        env: { ...base, ...call.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      const collect = (into: Buffer[]) => (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
        else into.push(chunk);
      };
      child.stdout.on('data', collect(out));
      child.stderr.on('data', collect(err));
      child.on('error', (e) => reject(new GitError(command, -1, e.message, 'is git installed and on PATH?')));
      child.on('close', (code, signal) => {
        const result = { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code: code ?? -1 };
        if (signal !== null) reject(new GitError(command, -1, `stopped by ${signal} (over ${timeoutMs / 1000} s or too much output)`));
        else if (result.code !== 0 && call.allowFailure !== true) reject(new GitError(command, result.code, result.stderr));
        else resolvePromise(result);
      });
      child.stdin.on('error', () => {
        // The command ended before reading all its input: its exit code says why.
      });
      child.stdin.end(call.input ?? '');
    });
}

/** The child's whole environment (exported for the test that checks the token is only here). */
export function gitEnvironment(opts: Pick<GitRunnerOptions, 'path' | 'home' | 'author' | 'auth'>): Record<string, string> {
  const vars: Record<string, string> = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: opts.author.name,
    GIT_AUTHOR_EMAIL: opts.author.email,
    GIT_COMMITTER_NAME: opts.author.name,
    GIT_COMMITTER_EMAIL: opts.author.email,
    LC_ALL: 'C',
  };
  if (opts.path !== undefined) vars.PATH = opts.path;
  if (opts.home !== undefined) vars.HOME = opts.home;
  const config: [string, string][] = [
    ['core.hooksPath', '/dev/null'],
    ['credential.helper', ''],
  ];
  if (opts.auth) config.push([`http.${opts.auth.repository}.extraHeader`, `Authorization: ${opts.auth.header.reveal()}`]);
  vars.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    setOwn(vars, `GIT_CONFIG_KEY_${i}`, key);
    setOwn(vars, `GIT_CONFIG_VALUE_${i}`, value);
  });
  return vars;
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-6).join(' | ').slice(0, 2000);
}
