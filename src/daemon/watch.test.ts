import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { debouncer, type Timers } from './watch.js';

/** A clock moved by hand: timers fire when the clock passes them, in order. */
function manualTimers() {
  let now = 0;
  let next = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = next++;
      pending.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id) => void pending.delete(id as number),
  };
  const advanceTo = (t: number) => {
    for (;;) {
      const due = [...pending.entries()].filter(([, p]) => p.at <= t).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      pending.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = t;
  };
  return { timers, advanceTo, now: () => now };
}

describe('the watch debounce', () => {
  it('runs once after a burst, when things have been quiet for the debounce', () => {
    const t = manualTimers();
    const flushes: number[] = [];
    const d = debouncer(300, 3_000, () => flushes.push(t.now()), t.timers);
    for (const at of [0, 100, 200, 250]) {
      t.advanceTo(at);
      d.poke();
    }
    t.advanceTo(10_000);
    expect(flushes).toEqual([550]);
  });

  it('never lets a steady stream of changes hold a run back longer than the maximum wait', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 1, maxLength: 200 }),
        (quiet, factor, gaps) => {
          const maxWait = quiet * factor;
          const t = manualTimers();
          const flushes: number[] = [];
          const d = debouncer(quiet, maxWait, () => flushes.push(t.now()), t.timers);
          // Each change is flushed no later than maxWait after it (or after the oldest one not yet flushed).
          const changes: number[] = [];
          let at = 0;
          for (const gap of gaps) {
            at += gap;
            t.advanceTo(at);
            changes.push(at);
            d.poke();
          }
          t.advanceTo(at + maxWait + quiet + 1);
          for (const change of changes) {
            const flushed = flushes.find((f) => f >= change);
            expect(flushed).toBeDefined();
            expect((flushed ?? Infinity) - change).toBeLessThanOrEqual(maxWait);
          }
          // And it is still a debounce: never more runs than changes.
          expect(flushes.length).toBeLessThanOrEqual(changes.length);
        },
      ),
    );
  });

  it('stops when cancelled', () => {
    const t = manualTimers();
    const flushes: number[] = [];
    const d = debouncer(300, 3_000, () => flushes.push(t.now()), t.timers);
    d.poke();
    d.cancel();
    t.advanceTo(10_000);
    expect(flushes).toEqual([]);
  });
});
