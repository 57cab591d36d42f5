import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { outputWriter, type CliIO } from './io.js';
import { closeProgress, terminalProgress, type Clock } from './progress.js';

const CLEAR = '\r\x1b[2K';

function terminal(env: Record<string, string> = {}, tty = true) {
  let now = 1_000_000;
  const ticks: (() => void)[] = [];
  const clock: Clock = {
    now: () => now,
    every: (_ms, fn) => {
      ticks.push(fn);
      return { stop: () => ticks.splice(ticks.indexOf(fn), 1) };
    },
  };
  const chunks: string[] = [];
  const sink = Object.assign(new PassThrough(), { isTTY: tty, columns: 200 });
  sink.on('data', (c: Buffer) => chunks.push(c.toString()));
  // stderr as a process has it: the output pass turns the line's clearing marker into the escape sequence.
  const stderr = outputWriter(sink as unknown as NodeJS.WriteStream);
  const io = { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env, cwd: '/' } as unknown as CliIO;
  const advance = (ms: number) => {
    now += ms;
    for (const tick of [...ticks]) tick();
  };
  /** What the terminal shows on its last line. */
  const screen = () => chunks.join('').split('\n').at(-1)?.split(CLEAR).at(-1) ?? '';
  return { io, clock, advance, screen, raw: () => chunks.join(''), ticking: () => ticks.length, now: () => now };
}

describe('the progress line', () => {
  it('exists only on a terminal and never in CI', () => {
    const t = terminal();
    expect(terminalProgress(t.io, t.clock)).toBeDefined();
    expect(terminalProgress(terminal({ CI: 'true' }).io)).toBeUndefined();
    expect(terminalProgress(terminal({}, false).io)).toBeUndefined();
  });

  it('counts a rate-limit wait down and clears itself when it is over', () => {
    const t = terminal();
    const p = terminalProgress(t.io, t.clock);
    p?.onWait({ seconds: 8, host: 'api.example:443', reason: 'the server asked: Retry-After: 8' });
    expect(t.screen()).toBe('obsync: waiting 8 s before the next request to api.example:443 (the server asked: Retry-After: 8)');
    t.advance(3_000);
    expect(t.screen()).toMatch(/^obsync: waiting 5 s /);
    t.advance(5_000);
    expect(t.screen()).toBe('');
    expect(t.ticking()).toBe(0);
  });

  it('shows a retry and a request slow to answer, seconds counting, until it answers', () => {
    const t = terminal();
    const p = terminalProgress(t.io, t.clock);
    p?.onRetry({ method: 'GET', path: '/api/v2/dashboards', host: 'h', attempt: 2, attempts: 4, cause: 'HTTP 503', waitMs: 2_000 });
    expect(t.screen()).toBe('obsync: GET /api/v2/dashboards failed (HTTP 503); attempt 2 of 4 in 2 s');
    t.advance(2_000);
    expect(t.screen()).toBe('');
    const done = p?.onSlow({ method: 'PUT', path: '/api/v2/alerts/1', host: 'h', startedAt: t.now() - 2_000 });
    expect(t.screen()).toBe('obsync: PUT /api/v2/alerts/1: no answer yet from h after 2 s');
    t.advance(3_000);
    expect(t.screen()).toBe('obsync: PUT /api/v2/alerts/1: no answer yet from h after 5 s');
    done?.();
    expect(t.screen()).toBe('');
  });

  it('lets other output pass above it and draws itself again below', () => {
    const t = terminal();
    const p = terminalProgress(t.io, t.clock);
    const done = p?.onSlow({ method: 'GET', path: '/x', host: 'h', startedAt: t.now() });
    t.io.stderr.write('Dashboard/checkout: created\n');
    expect(t.raw()).toContain(`${CLEAR}Dashboard/checkout: created\n${CLEAR}obsync: GET /x`);
    done?.();
    expect(t.raw().endsWith(CLEAR)).toBe(true);
  });

  it('is cleared for good when the command ends: its last words (an error) are not followed by a leftover line', () => {
    const t = terminal();
    const p = terminalProgress(t.io, t.clock);
    // A retry still shown (its back-off not over) when the request's error ends the command.
    p?.onRetry({ method: 'GET', path: '/x', host: 'h', attempt: 2, attempts: 4, cause: 'HTTP 503', waitMs: 5_000 });
    expect(t.screen()).toMatch(/^obsync: GET \/x failed/);
    closeProgress(t.io);
    t.io.stderr.write('error: GET /x failed\n');
    expect(t.raw().endsWith(`${CLEAR}error: GET /x failed\n`)).toBe(true);
    expect(t.screen()).toBe('');
    expect(t.ticking()).toBe(0);
    // Nothing comes back: a wait reported after the end is not drawn.
    p?.onWait({ seconds: 8, host: 'h', reason: 'r' });
    t.advance(1_000);
    expect(t.screen()).toBe('');
  });

  it('is one line for the targets of a command, not one per target', () => {
    const t = terminal();
    const a = terminalProgress(t.io, t.clock);
    const b = terminalProgress(t.io, t.clock);
    a?.onWait({ seconds: 8, host: 'a', reason: 'r' });
    b?.onWait({ seconds: 9, host: 'b', reason: 'r' });
    expect(t.screen()).toBe('obsync: waiting 9 s before the next request to b (r) (+1 more)');
    closeProgress(t.io);
  });
});
