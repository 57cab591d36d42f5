/**
 * Time a piece of work spent waiting for the rate limit (obsync's own pacing, and a pause a
 * server asked for with 429 Retry-After), told apart from the rest of its time. The pacer adds
 * each wait to the work under way in its async context (AsyncLocalStorage follows the awaits), so
 * concurrent steps each count only their own requests' waits. Outside `measuringWaits` nothing is
 * counted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const meter = new AsyncLocalStorage<{ waitedMs: number }>();

/** Runs `work`, which may ask at any point (on failure too) how long its requests have waited for the rate limit. */
export function measuringWaits<T>(work: (waitedMs: () => number) => Promise<T>): Promise<T> {
  const counter = { waitedMs: 0 };
  return meter.run(counter, () => work(() => Math.round(counter.waitedMs)));
}

/** A rate-limit wait of the work under way (the pacer calls it after each wait). */
export function countWait(ms: number): void {
  const counter = meter.getStore();
  if (counter && ms > 0) counter.waitedMs += ms;
}
