/**
 * The hosted-only parts of the sandbox domain: ClickPipes-style pipes (per service) and API keys
 * (per organization), with the rules of reference/hosted-api.md §3-4. Implemented in
 * ./pipes.ts and ./keys.ts; the HTTP layer (src/sandbox/http) routes to them and wraps results
 * in the hosted envelope. Same conventions as ./contract.ts: synchronous, validate fully before
 * changing anything, return a DomainResult (400 messages without the `BAD_REQUEST: ` prefix;
 * the HTTP layer adds it).
 */
import type { DomainResult, JsonRecord } from './contract.js';

export interface PipesDomain {
  list(): DomainResult<JsonRecord[]>;
  get(id: string): DomainResult<JsonRecord>;
  /** `POST /clickpipes`: starts in `Provisioning`, settles in `Running` (or `Completed` for one-shot object storage). */
  create(body: unknown): DomainResult<JsonRecord>;
  delete(id: string): DomainResult<JsonRecord>;
  /**
   * `PATCH /pipes/{id}`: name, patchable source members (credentials accepted, never returned),
   * destination.columns, fieldMappings, settings.
   */
  patch(id: string, body: unknown): DomainResult<JsonRecord>;
  getSettings(id: string): DomainResult<JsonRecord>;
  putSettings(id: string, body: unknown): DomainResult<JsonRecord>;
  patchScaling(id: string, body: unknown): DomainResult<JsonRecord>;
  /** `{command: start|stop|resync}`; transitions are asynchronous (advanced by `tick`). */
  setState(id: string, body: unknown): DomainResult<JsonRecord>;
  /** `GET /clickpipesCdcScaling`: the service's shared database-pipe pool, once a database pipe exists. */
  getCdcScaling(): DomainResult<JsonRecord>;
  /** `PATCH /clickpipesCdcScaling`: answers the requested pool; GET shows it once it has propagated (`tick`). */
  patchCdcScaling(body: unknown): DomainResult<JsonRecord>;
  /**
   * `…/clickpipesSshKeyResources[/{id}[/validate]]` (./pipes-ssh-keys.ts): the service's SSH key
   * resources; a pipe names one by `source.<kind>.sshKeyResourceId`, and one in use is not deleted.
   */
  readonly sshKeys: {
    list(): DomainResult<JsonRecord[]>;
    get(id: string): DomainResult<JsonRecord>;
    create(body: unknown): DomainResult<JsonRecord>;
    delete(id: string): DomainResult<JsonRecord>;
    validate(id: string): DomainResult<JsonRecord>;
  };
  /** `GET /clickpipes/context` (2026-09-05 spec, beta): the service's GCP workload identity; the sandbox has none. */
  context(): DomainResult<JsonRecord>;
  /** Advance asynchronous transitions whose time has come (Stopping → Stopped, Provisioning → Running, ...). */
  tick(): void;
  snapshot(): JsonRecord;
  readonly version: number;
}

export interface PipesDomainOptions {
  now?: () => Date;
  serviceId: string;
  seed?: 'demo' | 'none';
  snapshot?: JsonRecord;
  /** How long a transitional state lasts (default 300 ms; tests use small values). */
  transitionMs?: number;
}

/** A key the HTTP layer accepts for Basic auth. */
export interface KeyCredential {
  keyId: string;
  keySecret: string;
}

/** Who a request authenticated as (the key's resource id), or why it was refused (401 credentials, 403 network). */
export type KeyAuthentication = { ok: true; id: string } | { ok: false; status: 401 | 403; message: string };

export interface KeysDomain {
  list(): DomainResult<JsonRecord[]>;
  get(id: string): DomainResult<JsonRecord>;
  /** Result `{key, keyId, keySecret}` (keyId/keySecret omitted when `hashData` was sent). */
  create(body: unknown): DomainResult<JsonRecord>;
  /** Name, state, expiry (`null` clears), roles, IP access list (replaced whole). */
  patch(id: string, body: unknown): DomainResult<JsonRecord>;
  /** Refuses the key that authenticates the request (`callerId`). */
  delete(id: string, callerId: string): DomainResult<JsonRecord>;
  /** `GET /v1/organizations/{org}/roles`: the roles keys can be assigned, with the keys holding each. */
  roles(): DomainResult<JsonRecord[]>;
  /** Enabled, not expired, and called from an address in the key's IP access list. */
  authenticate(keyId: string, keySecret: string, ip: string): KeyAuthentication;
  snapshot(): JsonRecord;
  readonly version: number;
}

export interface KeysDomainOptions {
  now?: () => Date;
  /** The pre-provisioned key (the documented sandbox defaults). */
  bootstrap: KeyCredential;
  snapshot?: JsonRecord;
}
