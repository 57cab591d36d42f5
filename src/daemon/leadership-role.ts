/** What leadership means to one run and to the status: the replica's role, and the signal that ends a run. */
import type { TargetLeadership } from '../core/inventory.js';
import type { TargetStatus } from '../events/status-model.js';

export function roleOf(leadership: TargetLeadership | undefined, mode: 'apply' | 'plan'): TargetStatus['role'] {
  if (!leadership) return { kind: 'single', detail: mode === 'plan' ? 'plan mode: no election' : 'no election' };
  if (leadership.isLeader()) return { kind: 'leader', detail: leadership.describe() };
  if (leadership.isStandby()) return { kind: 'standby', detail: leadership.describe() };
  return { kind: 'electing', detail: leadership.describe() };
}

/** Aborted on shutdown, and when leadership ends mid-run (the new leader starts over). */
export function runSignal(shutdown: AbortSignal, lost: AbortSignal | undefined): { signal: AbortSignal; done: () => void } {
  if (!lost) return { signal: shutdown, done: () => undefined };
  const run = new AbortController();
  const abort = (source: AbortSignal) => () => run.abort(source.reason);
  const onShutdown = abort(shutdown);
  const onLost = abort(lost);
  if (shutdown.aborted || lost.aborted) run.abort(shutdown.aborted ? shutdown.reason : lost.reason);
  shutdown.addEventListener('abort', onShutdown, { once: true });
  lost.addEventListener('abort', onLost, { once: true });
  return {
    signal: run.signal,
    done: () => {
      shutdown.removeEventListener('abort', onShutdown);
      lost.removeEventListener('abort', onLost);
    },
  };
}
