import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RunSlots } from './slots.js';

describe('RunSlots', () => {
  it('runs at most the limit at once and grants waiting runs in order of arrival', async () => {
    const slots = new RunSlots(2);
    const never = new AbortController().signal;
    const a = await slots.take(never);
    const b = await slots.take(never);
    const granted: string[] = [];
    const c = slots.take(never).then((r) => (granted.push('c'), r));
    const d = slots.take(never).then((r) => (granted.push('d'), r));
    expect(slots.tryTake()).toBeUndefined();
    expect([slots.running, slots.waiting]).toEqual([2, 2]);
    b();
    b(); // a second release of the same slot changes nothing
    const releaseC = await c;
    expect(granted).toEqual(['c']);
    expect([slots.running, slots.waiting]).toEqual([2, 1]);
    a();
    (await d)();
    releaseC();
    expect(granted).toEqual(['c', 'd']);
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it('drops a waiting run whose signal aborts (shutdown) and gives its turn to the next', async () => {
    const slots = new RunSlots(1);
    const held = await slots.take(new AbortController().signal);
    const stop = new AbortController();
    const gone = slots.take(stop.signal);
    const next = slots.take(new AbortController().signal);
    stop.abort(new Error('shutting down'));
    await expect(gone).rejects.toThrow('shutting down');
    held();
    (await next)();
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it('never exceeds the limit nor loses a slot, whatever the order of takes, releases and aborts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 60 }), async (limit, ops) => {
        const slots = new RunSlots(limit);
        const held: (() => void)[] = [];
        const pending: AbortController[] = [];
        let peak = 0;
        for (const op of ops) {
          if (op === 0) {
            const ctl = new AbortController();
            pending.push(ctl);
            void slots.take(ctl.signal).then(
              (release) => held.push(release),
              () => undefined,
            );
          } else if (op === 1) held.shift()?.();
          else pending.shift()?.abort(new Error('stop'));
          await Promise.resolve();
          await Promise.resolve();
          peak = Math.max(peak, slots.running);
        }
        expect(peak).toBeLessThanOrEqual(limit);
        for (const ctl of pending) ctl.abort(new Error('stop'));
        while (held.length > 0) {
          held.shift()?.();
          await Promise.resolve();
          await Promise.resolve();
        }
        expect([slots.running, slots.waiting]).toEqual([0, 0]);
      }),
    );
  });
});
