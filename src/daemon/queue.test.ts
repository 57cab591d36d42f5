import { describe, expect, it } from 'vitest';
import { RunQueue, type TriggerReason } from './queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('RunQueue', () => {
  it('never runs two at once and collapses triggers during a run into one follow-up', async () => {
    const runs: ReadonlySet<TriggerReason>[] = [];
    let active = 0;
    let maxActive = 0;
    const gates = [deferred(), deferred()];
    const queue = new RunQueue(async (reasons) => {
      runs.push(reasons);
      active += 1;
      maxActive = Math.max(maxActive, active);
      await gates[runs.length - 1]?.promise;
      active -= 1;
    });
    queue.trigger('startup');
    for (let i = 0; i < 40; i += 1) queue.trigger('watch');
    queue.trigger('schedule');
    gates[0]?.resolve();
    await new Promise((r) => setTimeout(r, 0));
    gates[1]?.resolve();
    await queue.idle();
    expect(runs.map((r) => [...r].sort())).toEqual([['startup'], ['schedule', 'watch']]);
    expect(maxActive).toBe(1);
  });

  it('keeps going after a failed run and stops taking triggers once stopped', async () => {
    let calls = 0;
    const queue = new RunQueue(() => {
      calls += 1;
      return Promise.reject(new Error('api down'));
    });
    queue.trigger('startup');
    await queue.idle();
    queue.trigger('schedule');
    await queue.idle();
    expect(calls).toBe(2);
    await queue.stop();
    queue.trigger('watch');
    await queue.idle();
    expect(calls).toBe(2);
  });
});
