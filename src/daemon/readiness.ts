/**
 * What `/readyz` says (issue 50): it needs no token, so it says the status and a code — never a
 * message. A failing target's reason quotes the service (an error body may echo a secret in a
 * form no scrubber knows); the authenticated `/api/status` and the page keep that reason, the
 * probe gives `"code": "failing", "error": "API"` and since when. The body still passes the
 * scrubber on its way out, as everything obsync serves.
 */
import { scrubDeep } from '../core/scrub.js';
import type { Readiness, TargetReadiness } from './health.js';

/** Why a target is (not) ready, as a probe and a script read it. */
export type ReadinessCode =
  | 'ready'
  | 'standby'
  | 'shutting-down'
  | 'manifests-invalid'
  | 'manifests-not-loaded'
  | 'first-run'
  | 'failing'
  | 'no-success-yet'
  | 'stale';

/** One target as `/readyz` shows it: codes, counts and times obsync made, nothing a server or a file wrote. */
export interface ProbeTarget {
  ready: boolean;
  code: ReadinessCode;
  /** `failing`: the failure's code (`API`, `NETWORK`, `STATE_AUTH`, `refused`…). */
  error?: string;
  /** `failing`: since when, and how many runs failed in a row. */
  since?: string;
  failedRuns?: number;
  leader?: boolean;
}

export interface ProbeBody {
  ready: boolean;
  /** Not ready: `shutting down`, or `not ready: <the targets that are not>` (names from obsync.yaml). */
  reason?: string;
  targets: Record<string, ProbeTarget>;
  replica?: Readiness['replica'];
}

/** A code from an error (`API`, `unresolved-reference`): anything else (a code a server could have chosen) is `ERROR`. */
export function failureCode(code: string | undefined): string {
  return code !== undefined && /^[A-Za-z][A-Za-z0-9_.:-]{0,39}$/.test(code) ? code : 'ERROR';
}

export function probeTarget(r: TargetReadiness): ProbeTarget {
  return {
    ready: r.ready,
    code: r.code,
    ...(r.failure ? { error: failureCode(r.failure.code), since: r.failure.since.toISOString(), failedRuns: r.failure.runs } : {}),
    ...(r.leader === undefined ? {} : { leader: r.leader }),
  };
}

/** The `/readyz` body: the readiness without any reason text of a target, scrubbed. */
export function probeBody(r: Readiness): ProbeBody {
  const targets: Record<string, ProbeTarget> = {};
  for (const [name, target] of Object.entries(r.targets))
    Object.defineProperty(targets, name, { value: probeTarget(target), enumerable: true });
  return scrubDeep({
    ready: r.ready,
    ...(r.reason === undefined ? {} : { reason: r.reason }),
    targets,
    ...(r.replica === undefined ? {} : { replica: r.replica }),
  });
}
