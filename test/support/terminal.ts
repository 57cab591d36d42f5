/**
 * The built CLI on a real pseudo-terminal (util-linux `script`), as a user runs it: stdin, stdout
 * and stderr are the terminal, so readline draws its prompt with its own cursor control. The
 * answer is typed once the prompt shows.
 */
import { spawn } from 'node:child_process';
import { CLI } from './cli.js';
import { until } from './wait.js';

export interface TerminalRun {
  code: number;
  /** Everything the terminal received, raw (escape sequences and carriage returns included). */
  screen: string;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export async function runOnTerminal(
  args: readonly string[],
  opts: { cwd: string; env?: Record<string, string>; prompt: string; answer: string },
): Promise<TerminalRun> {
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', TERM: 'xterm-256color', SHELL: '/bin/sh', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (c: Buffer) => (screen += c.toString()));
  child.stderr.on('data', (c: Buffer) => (screen += c.toString()));
  const exited = new Promise<number>((done) => child.on('close', (code) => done(code ?? 1)));
  await until('the prompt', () => (screen.includes(opts.prompt) ? true : undefined), { context: () => screen, timeoutMs: 60_000 });
  child.stdin.write(`${opts.answer}\r`);
  const code = await exited;
  child.stdin.end();
  return { code, screen };
}
