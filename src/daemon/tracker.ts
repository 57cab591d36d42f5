/**
 * Small pure pieces of the daemon's view of a target: how a run's error reads as an event (the
 * service unreachable, or something else failed), when a manifest error list is new, and what the
 * inventory owns by kind. The daemon keeps the state; these only compute.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { ApiError, ObsyncError, errorMessage } from '../core/errors.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { EventBody } from '../events/vocabulary.js';
import { setOwn } from '../core/json.js';

/** At most this many diagnostics travel in a manifests-invalid event. */
const DIAGNOSTICS_IN_EVENT = 20;

/**
 * A run that threw: no response, a 5xx, a 429 or a deadline is the service being unreachable
 * (a state: reported when it starts and when it ends); anything else (401, a lost lease, a
 * state store down) is a failure of that run.
 */
export function failureOfRun(err: unknown): Extract<EventBody, { event: 'target-unreachable' | 'failed' }> {
  const message = errorMessage(err);
  if (err instanceof ApiError && (err.status === 0 || err.status === 429 || err.status >= 500))
    return { event: 'target-unreachable', code: err.code, status: err.status, message };
  return { event: 'failed', code: err instanceof ObsyncError ? err.code : 'ERROR', message };
}

/** The manifests-invalid event of a load with errors. */
export function manifestsInvalid(diagnostics: readonly Diagnostic[]): Extract<EventBody, { event: 'manifests-invalid' }> {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  return {
    event: 'manifests-invalid',
    errors: errors.length,
    diagnostics: errors.slice(0, DIAGNOSTICS_IN_EVENT).map((d) => ({
      ...(d.file === undefined ? {} : { file: d.file }),
      ...(d.line === undefined ? {} : { line: d.line }),
      ...(d.col === undefined ? {} : { col: d.col }),
      ...(d.path === undefined ? {} : { path: d.path }),
      code: d.code,
      message: d.message,
    })),
  };
}

/** Tells one list of manifest errors from another (a new mistake while still invalid is reported again). */
export function manifestsSignature(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => `${d.file ?? ''}:${d.line ?? ''}:${d.col ?? ''}:${d.code}:${d.message}`)
    .join('\n');
}

/** Owned objects by kind (pending creates are not owned yet). */
export function ownedByKind(entries: readonly InventoryEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) if (e.status === 'owned') setOwn(out, e.kind, (out[e.kind] ?? 0) + 1);
  return out;
}

/** `2 min`, `3 h 5 min`: how long a state has lasted, for readiness and the page. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 120) return `${min} min`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}
