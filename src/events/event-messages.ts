/** Each event's fixed log message and its log level. */
import type { EventName, ObsyncEvent } from './vocabulary.js';

/** The message of each event's log line (fixed: search logs by `event`, or by this). */
export const EVENT_MESSAGES: Record<EventName, string> = {
  'run-started': 'run started',
  'run-finished': 'run finished',
  drift: 'drift',
  healed: 'healed',
  created: 'created',
  updated: 'updated',
  deleted: 'deleted',
  adopted: 'adopted',
  imported: 'imported',
  moved: 'object moved',
  refused: 'refused',
  failed: 'failed',
  'non-convergent': 'non-convergent',
  'leader-acquired': 'leader acquired',
  'leader-lost': 'leader lost',
  'replicas-disagree': 'replicas disagree',
  'manifests-invalid': 'manifests invalid',
  'manifests-recovered': 'manifests recovered',
  'target-unreachable': 'target unreachable',
  'target-recovered': 'target recovered',
  proposal: 'proposal',
  'ignore-suggested': 'ignore rule suggested',
};

export type EventLevel = 'info' | 'warn' | 'error';

/**
 * The daemon's log level of each event, the one place it is decided (the CLI logs them all at
 * info: its plan output already says it), so collectors' level filters and alerts mean something:
 * `error` when something failed (a run, an object, the service, the manifests); `warn` when the
 * target runs degraded or something needs a look (drift, a refusal, a proposal conflict, a field the service does not
 * keep, an adoption, leadership lost, replicas that disagree, a run on the last good manifests);
 * `info` for the rest, recoveries included.
 */
export function eventLevel(e: ObsyncEvent): EventLevel {
  switch (e.event) {
    case 'run-finished':
      return e.result === 'success' ? 'info' : e.result === 'failure' ? 'error' : 'warn';
    case 'replicas-disagree':
      return e.details.length > 0 ? 'warn' : 'info';
    case 'proposal':
      return e.outcome === 'conflicted' ? 'warn' : 'info';
    default:
      return FIXED_LEVELS[e.event];
  }
}

const FIXED_LEVELS: Record<Exclude<EventName, 'run-finished' | 'replicas-disagree' | 'proposal'>, EventLevel> = {
  'run-started': 'info',
  drift: 'warn',
  healed: 'info',
  created: 'info',
  updated: 'info',
  deleted: 'info',
  adopted: 'warn',
  imported: 'info',
  moved: 'info',
  refused: 'warn',
  failed: 'error',
  'non-convergent': 'warn',
  'leader-acquired': 'info',
  'leader-lost': 'warn',
  'manifests-invalid': 'error',
  'manifests-recovered': 'info',
  'target-unreachable': 'error',
  'target-recovered': 'info',
  'ignore-suggested': 'info',
};
