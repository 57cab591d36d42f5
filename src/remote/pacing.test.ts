import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { measuringWaits } from './waits.js';
import { DeadlineExceeded, Pacer, retryDelayMs, safetyMarginMs, serverWait, type Slot, type WaitNotice } from './pacing.js';

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
  it("counts each wait to the work it was for, concurrent works apart (an apply step's time says its rate-limit wait)", async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 1, windowMs: 1000 }, clock.now, clock.sleep);
    const margin = safetyMarginMs(1000);
    const first = await measuringWaits(async (waited) => {
      pacer.settle(await pacer.acquire());
      return waited();
    });
    expect(first).toBe(0);
    const before = clock.now();
    const second = await measuringWaits(async (waited) => {
      pacer.settle(await pacer.acquire());
      return waited();
    });
    // The whole wait for the window (and its margin) to pass, as the clock saw it.
    expect(second).toBe(clock.now() - before);
    expect(second).toBeGreaterThanOrEqual(1000 + margin);
    // Outside a measured work nothing is counted, and a work's count is its own.
    pacer.settle(await pacer.acquire());
    const third = await measuringWaits(async (waited) => {
      const inner = await measuringWaits(async (own) => {
        pacer.settle(await pacer.acquire());
        return own();
      });
      return { inner, outer: waited() };
    });
    expect(third.inner).toBeGreaterThanOrEqual(1000 + margin);
    expect(third.outer).toBe(0);
  });

  it('never lets more than `limit` requests start in any window', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 3, windowMs: 1000 }, clock.now, clock.sleep);
    const starts: number[] = [];
    for (let i = 0; i < 10; i++) {
      pacer.settle(await pacer.acquire());
      starts.push(clock.now());
    }
    for (let i = 3; i < starts.length; i++) expect((starts[i] ?? 0) - (starts[i - 3] ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(starts.slice(0, 3)).toEqual([0, 0, 0]);
  });

  it('holds each slot until a window (and the safety margin) after its answer, however late the request was sent', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 2, windowMs: 1000 }, clock.now, clock.sleep);
    const a = await pacer.acquire();
    const b = await pacer.acquire();
    await clock.sleep(40);
    pacer.settle(b);
    // The first one left late (a busy event loop) and was answered 400 ms after its slot was given.
    await clock.sleep(360);
    pacer.settle(a);
    await pacer.acquire();
    expect(clock.now()).toBe(40 + 1000 + safetyMarginMs(1000) + 1);
    await pacer.acquire();
    expect(clock.now()).toBe(400 + 1000 + safetyMarginMs(1000) + 1);
  });

  it('holds a slot while its request is under way, however long', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 1, windowMs: 1000 }, clock.now, clock.sleep);
    pacer.tryAcquire();
    await clock.sleep(5_000);
    expect(pacer.tryAcquire()).toBeNull();
    expect(pacer.waitMs()).toBe(1000 + safetyMarginMs(1000) + 1);
  });

  it('knows when its own count fills the window', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ limit: 2, windowMs: 1000 }, clock.now, clock.sleep);
    pacer.settle(await pacer.acquire());
    expect(pacer.atLimit()).toBe(false);
    pacer.settle(await pacer.acquire());
    expect(pacer.atLimit()).toBe(true);
    await clock.sleep(1000 + safetyMarginMs(1000));
    expect(pacer.atLimit()).toBe(false);
  });

  it('keeps the safety margin small: half a percent of the window, at most a second', () => {
    expect(safetyMarginMs(60_000)).toBe(300);
    expect(safetyMarginMs(10_000)).toBe(50);
    expect(safetyMarginMs(3_600_000)).toBe(1_000);
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
    expect(sleeps.map((s) => s.ms)).toEqual([60_000 + safetyMarginMs(60_000) + 1]);
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

/**
 * Requests through one pacer as the server sees them: each waits for its slot, reaches the server
 * `send` ms after its slot was given (a busy event loop, a slow network) and is answered `answer`
 * ms after it arrived. Returns the arrival times.
 */
function arrivalsOf(limit: number, windowMs: number, requests: { gap: number; send: number; answer: number }[]): number[] {
  let now = 0;
  const pacer = new Pacer({ limit, windowMs }, () => now);
  const arrivals: number[] = [];
  let inFlight: { slot: Slot; answerAt: number }[] = [];
  let next = 0;
  let wantedAt = requests[0]?.gap ?? 0;
  while (next < requests.length || inFlight.length > 0) {
    for (const f of inFlight) if (f.answerAt <= now) pacer.settle(f.slot);
    inFlight = inFlight.filter((f) => f.answerAt > now);
    for (let r = requests[next]; r && wantedAt <= now; r = requests[next]) {
      const slot = pacer.tryAcquire();
      if (!slot) break;
      arrivals.push(now + r.send);
      inFlight.push({ slot, answerAt: now + r.send + r.answer });
      next += 1;
      wantedAt = now + (requests[next]?.gap ?? 0);
    }
    const blocked = next < requests.length && wantedAt <= now;
    const times = [...inFlight.map((f) => f.answerAt), next < requests.length && !blocked ? wantedAt : Infinity];
    if (blocked) times.push(now + pacer.waitMs());
    now = Math.min(...times);
  }
  return arrivals.sort((a, b) => a - b);
}

describe('Pacer against a server that counts arrivals', () => {
  it('never lets `limit + 1` requests arrive within one window, whatever their delays before and after the server', () => {
    const request = fc.record({ gap: fc.nat(300), send: fc.nat(600), answer: fc.nat(300) });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(request, { minLength: 1, maxLength: 40 }), (limit, requests) => {
        const arrivals = arrivalsOf(limit, 1000, requests);
        expect(arrivals).toHaveLength(requests.length);
        // Any window [x, x + 1000), wherever the server starts it, holds at most `limit` arrivals.
        for (let i = 0; i + limit < arrivals.length; i++)
          expect((arrivals[i + limit] ?? 0) - (arrivals[i] ?? 0)).toBeGreaterThanOrEqual(1000);
      }),
    );
  });

  it('sends the successors of a late request a window after its answer (the bench 429 at a boundary)', () => {
    // Two slots; the first request reaches the server 300 ms after its slot (its process was busy).
    const arrivals = arrivalsOf(2, 1000, [
      { gap: 0, send: 300, answer: 10 },
      { gap: 0, send: 0, answer: 10 },
      { gap: 0, send: 0, answer: 10 },
      { gap: 0, send: 0, answer: 10 },
    ]);
    expect(arrivals).toEqual([0, 300, 1000 + 10 + safetyMarginMs(1000) + 1, 300 + 10 + 1000 + safetyMarginMs(1000) + 1]);
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
