/**
 * Which events are worth telling people, once per state change (issue 25), and how many
 * messages that takes: one per target and class for what a run found (issue 52). Pure: events
 * in, notifications out. Per target:
 * - failed / recovered follow the runs: the first failed run of a streak notifies `failed` (with
 *   its error), the first good run after it `recovered`; a target failing for an hour is one
 *   notification, not one per retry.
 * - drift, refused and non-convergent are conditions of an object: told when they appear, again
 *   only after a run that planned without them (a drift healed and made again is a new one).
 * - healed, adopted and leadership changes are changes already: each is told.
 * - What one run tells of objects (drift, healed, adopted, refused, non-convergent) is held until
 *   the run finishes, then told as one notification per class, carrying every object's event:
 *   an emptied service is two messages (drift, healed), not two per object. An object event
 *   outside a run is told at once.
 */
import type { EventOf, NotificationClass, ObsyncEvent } from '../events/vocabulary.js';
import { ignoreSuggestionText } from '../events/describe.js';
import { groupSummary, OBJECT_CLASSES, type ObjectClass } from './group.js';

export interface Notification {
  kind: NotificationClass;
  target: string;
  time: string;
  severity: 'info' | 'warning' | 'error';
  /** One line, plain text. */
  summary: string;
  /** A failing target: since when (with `failed` and `recovered`). */
  since?: string;
  /** The event behind it: the first of `objects` when it groups several. */
  event: ObsyncEvent;
  /** A class about objects: every event of the run it tells, in order (one or more). */
  objects?: readonly ObsyncEvent[];
}

/** What a run under way has told of its objects, held until it finishes. */
interface RunHeld {
  byClass: Map<ObjectClass, ObsyncEvent[]>;
  healed: Set<string>;
  missing: Set<string>;
}

interface TargetMemory {
  failingSince: string | null;
  failedRuns: number;
  /** Conditions told and not yet gone, by key. */
  active: Set<string>;
  /** Conditions seen in the run under way. */
  seen: Set<string>;
  /** The run under way (between its run-started and run-finished), if any. */
  run: RunHeld | null;
}

const SEVERITY: Record<ObjectClass, Notification['severity']> = {
  drift: 'warning',
  healed: 'info',
  adopted: 'warning',
  refused: 'warning',
  'non-convergent': 'warning',
};

export class NotificationPolicy {
  readonly #targets = new Map<string, TargetMemory>();

  observe(event: ObsyncEvent): Notification[] {
    const memory = this.#memory(event.target);
    switch (event.event) {
      case 'run-started':
        memory.seen.clear();
        memory.run = { byClass: new Map(), healed: new Set(), missing: new Set() };
        return [];
      case 'run-finished': {
        const groups = this.#flush(memory);
        return [...groups, ...this.#runFinished(memory, event)];
      }
      case 'drift':
        if (event.reason === 'missing') memory.run?.missing.add(event.address);
        return this.#condition(memory, event, 'drift', `drift ${event.address}`);
      case 'refused':
        return this.#condition(memory, event, 'refused', `refused ${event.guard} ${event.address ?? ''} ${event.message}`);
      case 'non-convergent':
        return this.#condition(memory, event, 'non-convergent', `non-convergent ${event.address} ${event.paths.join(',')}`);
      case 'healed':
        memory.run?.healed.add(event.address);
        return this.#object(memory, 'healed', event);
      case 'adopted':
        return this.#object(memory, 'adopted', event);
      case 'leader-acquired':
        return [notification('leader', event, 'info', `this replica now leads target ${event.target}`)];
      case 'leader-lost':
        return [notification('leader', event, 'warning', `this replica no longer leads target ${event.target}: ${event.holder}`)];
      case 'proposal':
        return [
          notification(
            'proposal',
            event,
            event.outcome === 'conflicted' ? 'warning' : 'info',
            `target ${event.target}: changes made on the service, proposal ${event.outcome}: ${event.url ?? event.branch}`,
          ),
        ];
      case 'ignore-suggested':
        return [notification('ignore-suggested', event, 'info', `target ${event.target}: ${ignoreSuggestionText(event)}`)];
      default:
        return [];
    }
  }

  #memory(target: string): TargetMemory {
    let memory = this.#targets.get(target);
    if (!memory) this.#targets.set(target, (memory = { failingSince: null, failedRuns: 0, active: new Set(), seen: new Set(), run: null }));
    return memory;
  }

  #condition(memory: TargetMemory, event: ObsyncEvent, kind: ObjectClass, key: string): Notification[] {
    memory.seen.add(key);
    if (memory.active.has(key)) return [];
    memory.active.add(key);
    return this.#object(memory, kind, event);
  }

  /** Held for the run's grouped notification; told at once outside a run. */
  #object(memory: TargetMemory, kind: ObjectClass, event: ObsyncEvent): Notification[] {
    const run = memory.run;
    if (!run) return [grouped(kind, [event], { healed: new Set(), missing: new Set() })];
    const held = run.byClass.get(kind);
    if (held) held.push(event);
    else run.byClass.set(kind, [event]);
    return [];
  }

  /** One notification per class of what the run told of its objects. */
  #flush(memory: TargetMemory): Notification[] {
    const run = memory.run;
    memory.run = null;
    if (!run) return [];
    return OBJECT_CLASSES.flatMap((kind) => {
      const events = run.byClass.get(kind);
      return events ? [grouped(kind, events, run)] : [];
    });
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

function grouped(kind: ObjectClass, events: ObsyncEvent[], facts: { healed: ReadonlySet<string>; missing: ReadonlySet<string> }) {
  const [first] = events as [ObsyncEvent, ...ObsyncEvent[]];
  return { ...notification(kind, first, SEVERITY[kind], groupSummary(kind, first.target, events, facts)), objects: events };
}

function notification(kind: NotificationClass, event: ObsyncEvent, severity: Notification['severity'], summary: string): Notification {
  return { kind, target: event.target, time: event.time, severity, summary, event };
}
