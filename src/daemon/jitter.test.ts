import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScheduleJitter } from './jitter.js';

describe('the jitter of scheduled runs', () => {
  it('the next run shown is when it really starts: the fire the cron named plus the delay that fire then waits', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 0.999_999, noNaN: true }), { minLength: 1, maxLength: 20 }), (draws) => {
        let i = 0;
        const jitter = new ScheduleJitter(10_000, () => draws[i++ % draws.length] ?? 0);
        let fire = new Date('2026-11-26T12:00:00Z');
        for (let n = 0; n < draws.length; n++) {
          const shown = jitter.nextStart(fire);
          const delay = jitter.fire(fire);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(10_000);
          expect(shown?.getTime()).toBe(fire.getTime() + delay);
          // While it waits, the run waiting is the next one, whatever the cron says next.
          expect(jitter.nextStart(new Date(fire.getTime() + 300_000))?.getTime()).toBe(fire.getTime() + delay);
          jitter.started();
          fire = new Date(fire.getTime() + 300_000);
        }
      }),
    );
  });

  it('no cron fire ahead: no scheduled run', () => {
    expect(new ScheduleJitter(10_000).nextStart(null)).toBeNull();
  });

  it("never longer than half the schedule's interval: each fire's run starts before the next fire", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000, max: 600_000 }), fc.double({ min: 0, max: 0.999_999, noNaN: true }), (intervalMs, r) => {
        const delay = ScheduleJitter.forSchedule(10_000, intervalMs, () => r).fire(new Date(0));
        expect(delay).toBeLessThanOrEqual(Math.min(10_000, intervalMs / 2));
      }),
    );
  });
});
