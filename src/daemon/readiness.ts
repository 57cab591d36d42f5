/**
 * What `/readyz` says (issue 50): it needs no token, so it says the status and a code — never a
 * message. A failing target's reason quotes the service (an error body may echo a secret in a
 * form no scrubber knows); the authenticated `/api/status` and the page keep that reason, the
 * probe gives `"code": "failing", "error": "API"` and since when. The body still passes the
 * scrubber on its way out, as everything obsync serves.
 */
import { scrubDeep } from '../core/scrub.js';

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

/** One target's readiness; `leader` only where replicas elect a leader (apply mode). */
export interface TargetReadiness {
  ready: boolean;
  code: ReadinessCode;
  /** For people, where a token guards it (/api/status): a failure's reason quotes the service. */
  reason: string;
  /** A failing target: the failure's code, since when, how many runs in a row. */
  failure?: { code: string; since: Date; runs: number };
  leader?: boolean;
}

/** The process: ready only when every target is. */
export interface Readiness {
  ready: boolean;
  /** Why not, when not (shutting down, or the targets that are not ready). */
  reason?: string;
  targets: Record<string, TargetReadiness>;
  /** Apply mode: what this replica leads, and on the PostgreSQL state what is assigned to it. */
  replica?: ReplicaReadiness;
}

export interface ReplicaReadiness {
  id: string;
  /** The targets this replica leads now. */
  leads: string[];
  /** How many (obsync_targets_held). */
  holds: number;
  /** `postgres`: targets shared by the live replicas; `off`: the file state, every replica competes for every target. */
  sharing: 'postgres' | 'off';
  assigned?: string[];
  replicas?: number;
  disagreements?: string[];
}

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
