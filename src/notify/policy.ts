/**
 * Which events are worth telling people, once per state change (issue 25). Pure: events in,
 * notifications out. Per target:
 * - failed / recovered follow the runs: the first failed run of a streak notifies `failed` (with
 *   its error), the first good run after it `recovered`; a target failing for an hour is one
 *   notification, not one per retry.
 * - drift, refused and non-convergent are conditions of an object: told when they appear, again
 *   only after a run that planned without them (a drift healed and made again is a new one).
 * - healed, adopted and leadership changes are changes already: each is told.
 */
import { describeEvent, eventObject } from '../events/describe.js';
import type { EventOf, NotificationClass, ObsyncEvent } from '../events/vocabulary.js';

export interface Notification {
  kind: NotificationClass;
  target: string;
  time: string;
  severity: 'info' | 'warning' | 'error';
  /** One line, plain text. */
  summary: string;
  /** A failing target: since when (with `failed` and `recovered`). */
  since?: string;
  /** The event behind it. */
  event: ObsyncEvent;
}

interface TargetMemory {
  failingSince: string | null;
  failedRuns: number;
  /** Conditions told and not yet gone, by key. */
  active: Set<string>;
  /** Conditions seen in the run under way. */
  seen: Set<string>;
}

export class NotificationPolicy {
  readonly #targets = new Map<string, TargetMemory>();

  observe(event: ObsyncEvent): Notification[] {
    const memory = this.#memory(event.target);
    switch (event.event) {
      case 'run-started':
        memory.seen.clear();
        return [];
      case 'run-finished':
        return this.#runFinished(memory, event);
      case 'drift':
        return this.#condition(memory, event, 'drift', `drift ${event.address}`, 'warning');
      case 'refused':
        return this.#condition(memory, event, 'refused', `refused ${event.guard} ${event.address ?? ''} ${event.message}`, 'warning');
      case 'non-convergent':
        return this.#condition(memory, event, 'non-convergent', `non-convergent ${event.address} ${event.paths.join(',')}`, 'warning');
      case 'healed':
        return [notification('healed', event, 'info', `${event.address} ${describeEvent(event)}`)];
      case 'adopted':
        return [notification('adopted', event, 'warning', `${event.address} ${describeEvent(event)}`)];
      case 'leader-acquired':
        return [notification('leader', event, 'info', `this replica now leads target ${event.target}`)];
      case 'leader-lost':
        return [notification('leader', event, 'warning', `this replica no longer leads target ${event.target}: ${event.holder}`)];
      default:
        return [];
    }
  }

  #memory(target: string): TargetMemory {
    let memory = this.#targets.get(target);
    if (!memory) this.#targets.set(target, (memory = { failingSince: null, failedRuns: 0, active: new Set(), seen: new Set() }));
    return memory;
  }

  #condition(memory: TargetMemory, event: ObsyncEvent, kind: NotificationClass, key: string, severity: Notification['severity']) {
    memory.seen.add(key);
    if (memory.active.has(key)) return [];
    memory.active.add(key);
    const object = eventObject(event);
    return [notification(kind, event, severity, `${object ? `${object} ` : ''}${describeEvent(event)}`)];
  }

  #runFinished(memory: TargetMemory, event: EventOf<'run-finished'>): Notification[] {
    // Conditions not seen again in a run that planned are gone (a run that failed before planning knows nothing of them).
    if (event.planned) for (const key of [...memory.active]) if (!memory.seen.has(key)) memory.active.delete(key);
    if (event.result !== 'success') {
      memory.failedRuns += 1;
      if (memory.failingSince !== null) return [];
      memory.failingSince = event.time;
      const why = event.error ?? (event.result === 'invalid-manifests' ? 'the manifests are invalid' : 'the run failed');
      return [{ ...notification('failed', event, 'error', `target ${event.target} is failing: ${why}`), since: event.time }];
    }
    if (memory.failingSince === null) return [];
    const since = memory.failingSince;
    const runs = memory.failedRuns;
    memory.failingSince = null;
    memory.failedRuns = 0;
    return [
      {
        ...notification('recovered', event, 'info', `target ${event.target} recovered after ${runs} failed run(s), failing since ${since}`),
        since,
      },
    ];
  }
}

function notification(kind: NotificationClass, event: ObsyncEvent, severity: Notification['severity'], summary: string): Notification {
  return { kind, target: event.target, time: event.time, severity, summary, event };
}
