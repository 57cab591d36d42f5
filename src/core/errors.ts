import { scrub } from './scrub.js';

/**
 * The few error classes obsync throws. Every message names the thing that is wrong
 * (file, object address or request) and, where there is one, what to do about it.
 */

export class ObsyncError extends Error {
  override readonly name: string = 'ObsyncError';
  /** A short machine-readable code, stable across versions. */
  readonly code: string;
  /** What the user can do about it, when there is something. */
  readonly hint: string | undefined;

  constructor(code: string, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options?.hint;
  }
}

/** Bad configuration (obsync.yaml, flags, environment). Nothing has been written. */
export class ConfigError extends ObsyncError {
  override readonly name = 'ConfigError';
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super('CONFIG', message, options);
  }
}

/**
 * A request to the service failed. Never carries a credential: only method, path, status and a
 * body excerpt, scrubbed before it is cut (a server may echo the request, secrets included).
 */
export class ApiError extends ObsyncError {
  override readonly name: string = 'ApiError';
  readonly method: string;
  /** Request path without query credentials (there are none) and without the origin. */
  readonly path: string;
  /** HTTP status, or 0 when no response arrived (connection error, timeout). */
  readonly status: number;
  /** Whether an identical request may succeed later (429, 5xx, connection errors). */
  readonly retryable: boolean;
  /** At most 300 characters of the response body, for the user to read. */
  readonly bodyExcerpt: string;
  /** The server's request id when it sent one (hosted variant). */
  readonly requestId: string | undefined;
  /** host[:port] of the target (never credentials): which service failed, when several are configured. */
  readonly host: string | undefined;

  constructor(init: {
    method: string;
    path: string;
    host?: string;
    status: number;
    retryable: boolean;
    bodyExcerpt?: string;
    requestId?: string;
    message?: string;
    code?: string;
    hint?: string;
    cause?: unknown;
  }) {
    const excerpt = scrub(init.bodyExcerpt ?? '').slice(0, 300);
    const what = init.status === 0 ? 'no response' : `HTTP ${init.status}`;
    super(init.code ?? 'API', scrub(init.message ?? `${requestLabel(init)} failed: ${what}${excerpt ? ` — ${excerpt}` : ''}`), {
      ...(init.hint === undefined ? {} : { hint: init.hint }),
      cause: init.cause,
    });
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.retryable = init.retryable;
    this.bodyExcerpt = excerpt;
    this.requestId = init.requestId;
    this.host = init.host;
  }

  get notFound(): boolean {
    return this.status === 404;
  }
}

/**
 * A write (POST, or a non-idempotent PATCH) whose outcome is unknown: the connection broke or
 * the server failed after the request was sent. The caller must re-read and resolve it (adopt
 * by natural key), never blindly send the write again.
 */
export class AmbiguousWriteError extends ApiError {
  override readonly name = 'AmbiguousWriteError';
  constructor(init: ConstructorParameters<typeof ApiError>[0]) {
    super({
      ...init,
      code: 'AMBIGUOUS_WRITE',
      retryable: false,
      message:
        init.message ??
        `${requestLabel(init)}: outcome unknown ` +
          `(${init.status === 0 ? 'connection lost before a response' : `HTTP ${init.status}`}); the object may or may not exist`,
    });
  }
}

/** The target's variant does not offer what was asked (pipes and keys are hosted only, chart queries self-hosted only). */
export class CapabilityError extends ObsyncError {
  override readonly name = 'CapabilityError';
  constructor(target: string, variant: string, capability: string, hint?: string) {
    super('CAPABILITY', `target '${target}' (${variant}) does not support ${capability}`, hint === undefined ? undefined : { hint });
  }
}

/** The inventory of a target is locked by another writer. */
export class LockError extends ObsyncError {
  override readonly name: string = 'LockError';
  constructor(message: string, hint?: string, code = 'LOCKED') {
    super(code, message, hint === undefined ? undefined : { hint });
  }
}

/**
 * This process no longer holds the writer lease of a target (it was lost, taken over, released,
 * or its local deadline passed while the process was paused): nothing more may be written to the
 * service or the inventory. The run stops; the next one starts over under a new lease.
 */
export class LeaseLostError extends LockError {
  override readonly name = 'LeaseLostError';
  constructor(message: string, hint = 'another obsync may be writing this target now; the next run starts over') {
    super(message, hint, 'LEASE_LOST');
  }
}

/**
 * A write a read-only command tried to send (plan, export, import, a plan-mode daemon): refused
 * before it left (core/fence.ts `READ_ONLY`). Only `apply` and an apply-mode daemon write to the
 * service, under the writer lease.
 */
export class ReadOnlyError extends ObsyncError {
  override readonly name = 'ReadOnlyError';
  constructor(request: string) {
    super('READ_ONLY', `${request}: this command only reads the service, and the request would change it; it was not sent`, {
      hint: 'only `obsync apply` (and `obsync run --mode apply`) write to the service, under the writer lease',
    });
  }
}

/**
 * The hosted service is idle, and the ClickPipes API answers only a running one: reading pipes
 * would mean waking it, which a read-only command never does. The command plans (or exports)
 * the rest and says what it could not read.
 */
export class ServiceIdleError extends ObsyncError {
  override readonly name = 'ServiceIdleError';
  constructor(target: string) {
    super('SERVICE_IDLE', `target '${target}': the service is idle; ClickPipes cannot be read without waking it`, {
      hint: '`obsync apply` wakes it (under the writer lease); or wake it in the ClickHouse Cloud console and run this again',
    });
  }
}

/**
 * A key change that would lock obsync out of its own target: disabling or deleting the key the
 * target authenticates with. Refused before the request is sent.
 */
export class OwnKeyError extends ObsyncError {
  override readonly name = 'OwnKeyError';
  constructor(message: string) {
    super('OWN_KEY', message, {
      hint:
        'point the target at another key first (OBSYNC_KEY_ID and OBSYNC_KEY_SECRET, or credentials in obsync.yaml; `obsync ' +
        'keys create` makes one), then run this again with that target',
    });
  }
}

/** The plan cannot be built as asked (ambiguous adoption, missing reference, a guard refused). */
export class PlanError extends ObsyncError {
  override readonly name = 'PlanError';
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super('PLAN', message, options);
  }
}

/** A broken internal assumption: a bug in obsync, not in the user's input. */
export class InvariantError extends ObsyncError {
  override readonly name = 'InvariantError';
  constructor(message: string) {
    super('INVARIANT', `internal error: ${message} (please report this)`);
  }
}

/** `GET /api/v2/dashboards on obs.example.com:8000`: the request, and the host when known. */
export function requestLabel(init: { method: string; path: string; host?: string | undefined }): string {
  return `${init.method} ${init.path}${init.host ? ` on ${init.host}` : ''}`;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
