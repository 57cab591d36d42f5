import { describe, expect, it } from 'vitest';
import { Pacer, retryDelayMs } from './pacing.js';

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
});
