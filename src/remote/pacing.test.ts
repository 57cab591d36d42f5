import { describe, expect, it } from 'vitest';
import { DeadlineExceeded, Pacer, retryDelayMs, serverWait, type WaitNotice } from './pacing.js';

function fakeClock() {
  let now = 0;
  return {
    now: () => now,
    sleep: (ms: number) => {
      now += ms;
      return Promise.resolve();
    },
  };
}

describe('Pacer', () => {
  it('never lets more than `limit` requests start in any window', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 3, windowMs: 1000 }, clock.now, clock.sleep);
    const starts: number[] = [];
    for (let i = 0; i < 10; i++) {
      await pacer.acquire();
      starts.push(clock.now());
    }
    for (let i = 3; i < starts.length; i++) expect((starts[i] ?? 0) - (starts[i - 3] ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(starts.slice(0, 3)).toEqual([0, 0, 0]);
  });

  it('holds each slot for the window plus the slowest recent round trip', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 2, windowMs: 1000 }, clock.now, clock.sleep);
    await pacer.acquire();
    await pacer.acquire();
    pacer.observe(40);
    pacer.observe(120);
    await pacer.acquire();
    // Both earlier requests could have arrived up to 120 ms late; the third waits for that too.
    expect(clock.now()).toBe(1121);
    expect(pacer.marginMs()).toBe(120);
    for (let i = 0; i < 3; i++) pacer.observe(10);
    expect(pacer.marginMs()).toBe(10);
  });

  it('knows when its own count fills the window', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 2, windowMs: 1000 }, clock.now, clock.sleep);
    await pacer.acquire();
    expect(pacer.atLimit()).toBe(false);
    await pacer.acquire();
    expect(pacer.atLimit()).toBe(true);
    await clock.sleep(1001);
    expect(pacer.atLimit()).toBe(false);
  });

  it('caps the margin at half a window', () => {
    const pacer = new Pacer({ limit: 5, windowMs: 1000 });
    pacer.observe(5000);
    expect(pacer.marginMs()).toBe(500);
  });

  it('reports a wait over 2 s once, however many requests wait through it', async () => {
    const clock = fakeClock();
    const notices: WaitNotice[] = [];
    const pacer = new Pacer(null, clock.now, clock.sleep, (n) => notices.push(n));
    pacer.pause(5_000, 'Retry-After: 5');
    await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);
    expect(notices).toEqual([{ ms: 5_000, reason: { kind: 'server', header: 'Retry-After: 5' } }]);
    pacer.pause(1_500);
    await pacer.acquire();
    expect(notices).toHaveLength(1);
  });

  it('refuses to wait past the deadline', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(null, clock.now, clock.sleep);
    pacer.pause(10_000);
    await expect(pacer.acquire(undefined, 5_000)).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(clock.now()).toBe(0);
  });

  it('gives the slot of a request that never reached the server back, to a waiting request at once', async () => {
    let now = 0;
    const sleeps: { ms: number; signal: AbortSignal | undefined }[] = [];
    // A sleep that only ends when aborted: the waiter must be woken, not time out.
    const sleep = (ms: number, signal?: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        sleeps.push({ ms, signal });
        signal?.addEventListener('abort', () => reject(signal.reason as Error));
      });
    const pacer = new Pacer({ limit: 1, windowMs: 60_000 }, () => now, sleep);
    const first = await pacer.acquire();
    let second = false;
    const waiting = pacer.acquire().then(() => (second = true));
    await Promise.resolve();
    expect(sleeps.map((s) => s.ms)).toEqual([60_001]);
    expect(second).toBe(false);
    now = 5;
    pacer.refund(first);
    await waiting;
    expect(second).toBe(true);
    expect(sleeps).toHaveLength(1);
    // The slot is taken again by the second request: a third still waits.
    expect(pacer.waitMs()).toBeGreaterThan(59_000);
  });

  it('begins no wait, and reports none, for a request already cancelled', async () => {
    const clock = fakeClock();
    const notices: WaitNotice[] = [];
    const pacer = new Pacer(null, clock.now, clock.sleep, (n) => notices.push(n));
    pacer.pause(10_000);
    const cancelled = new AbortController();
    cancelled.abort(new Error('closed'));
    await expect(pacer.acquire(cancelled.signal)).rejects.toThrow('closed');
    expect(notices).toEqual([]);
    expect(clock.now()).toBe(0);
  });

  it('honours a pause imposed by the server', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(null, clock.now, clock.sleep);
    pacer.pause(2500);
    await pacer.acquire();
    expect(clock.now()).toBe(2500);
  });
});

describe('retryDelayMs', () => {
  it('reads Retry-After seconds, then the reset headers', () => {
    expect(retryDelayMs({ 'retry-after': '3' }, 0)).toBe(3000);
    expect(retryDelayMs({ 'x-ratelimit-reset': '1.5' }, 0)).toBe(1500);
    expect(retryDelayMs({}, 0)).toBeNull();
  });

  it('reads epoch resets in seconds and milliseconds, HTTP dates, and ignores what is not a wait', () => {
    const now = 1_700_000_000_000;
    expect(serverWait({ 'x-ratelimit-reset': String(now / 1000 + 30) }, now)).toEqual({
      ms: 30_000,
      header: `X-RateLimit-Reset: ${now / 1000 + 30}`,
    });
    expect(serverWait({ 'x-ratelimit-reset': String(now + 4_000) }, now)?.ms).toBe(4_000);
    expect(serverWait({ 'retry-after': new Date(now + 60_000).toUTCString() }, now)?.ms).toBe(60_000);
    expect(serverWait({ 'ratelimit-reset': '12' }, now)?.ms).toBe(12_000);
    expect(serverWait({ 'retry-after': '-5' }, now)).toBeNull();
    expect(serverWait({ 'retry-after': 'soon' }, now)).toBeNull();
  });
});
