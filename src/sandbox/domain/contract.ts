/**
 * The contract between the sandbox's HTTP layer (src/sandbox/http, both variants) and its
 * observability domain (src/sandbox/domain): dashboards, alerts, sources, webhooks, saved
 * searches, chart series; and, routed for the self-hosted variant only, connections, source
 * writes, the team and search. The domain holds the rules of reference/selfhosted-api.md; the HTTP layer owns
 * routing, auth, rate limits, faults, envelopes and error body shapes per variant.
 *
 * Every operation is synchronous, validates fully before changing anything ("bad requests
 * change nothing"), and returns a DomainResult instead of throwing.
 */

export type DomainStatus = 400 | 404 | 409 | 413 | 500;

export interface DomainError {
  status: DomainStatus;
  /** The server's message, e.g. `Body validation failed: tiles.0.x: ...` or `Alert not found`. */
  message: string;
  /**
   * How the self-hosted server writes this error: most are JSON `{message}`, but some routes
   * answer with Express `sendStatus` plain text (`Not Found`). The hosted layer ignores this and
   * always writes its envelope with a `BAD_REQUEST: ` / `NOT_FOUND: ` prefix.
   */
  selfHostedBody: { type: 'json'; body: Record<string, unknown> | unknown[] } | { type: 'text'; text: string };
}

export interface PageMeta {
  total: number;
  limit: number;
  offset: number;
}

export type DomainResult<T> = { ok: true; value: T; meta?: PageMeta } | { ok: false; error: DomainError };

/** Raw pagination query as received (strings), validated by the domain (`Query validation failed: ...`). */
export interface PageQuery {
  limit?: string | string[];
  offset?: string | string[];
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonRecord = { [k: string]: JsonValue };

/** Which variant's gateway is calling: a few rules differ (hosted rejects a top-level dashboard `id`). */
export type CallerVariant = 'hosted' | 'self-hosted';

/**
 * One team's (self-hosted) or one service's (hosted) objects. Implemented over a store that can
 * be serialised to JSON (`snapshot()` / `restore()`), so the HTTP layer can persist it to `--data`.
 */
export interface ObservabilityDomain {
  listDashboards(): DomainResult<JsonRecord[]>;
  getDashboard(id: string): DomainResult<JsonRecord>;
  createDashboard(body: unknown, caller: CallerVariant): DomainResult<JsonRecord>;
  updateDashboard(id: string, body: unknown, caller: CallerVariant): DomainResult<JsonRecord>;
  deleteDashboard(id: string): DomainResult<JsonRecord>;
  validateDashboard(body: unknown): DomainResult<JsonRecord>;

  listAlerts(query: PageQuery): DomainResult<JsonRecord[]>;
  getAlert(id: string): DomainResult<JsonRecord>;
  /** `caller` defaults to self-hosted. Hosted: an explicit `groupBy: null` is refused. */
  createAlert(body: unknown, caller?: CallerVariant): DomainResult<JsonRecord>;
  /** Hosted: `groupBy: null` refused, an omitted `groupBy` kept. */
  updateAlert(id: string, body: unknown, caller?: CallerVariant): DomainResult<JsonRecord>;
  deleteAlert(id: string): DomainResult<JsonRecord>;

  listSources(): DomainResult<JsonRecord[]>;
  getSource(id: string): DomainResult<JsonRecord>;
  createSource(body: unknown): DomainResult<JsonRecord>;
  /** Full replace; the kind may change. No cascade. */
  updateSource(id: string, body: unknown): DomainResult<JsonRecord>;
  /** No cascade: dashboards, saved searches and filters may be left referring to it. */
  deleteSource(id: string): DomainResult<JsonRecord>;

  /** Connections: the write-only `password` is never returned. */
  listConnections(): DomainResult<JsonRecord[]>;
  getConnection(id: string): DomainResult<JsonRecord>;
  createConnection(body: unknown): DomainResult<JsonRecord>;
  updateConnection(id: string, body: unknown): DomainResult<JsonRecord>;
  /** No cascade: sources and Raw SQL tiles may be left referring to it. */
  deleteConnection(id: string): DomainResult<JsonRecord>;

  /** `GET /api/v2`: the caller's user document. */
  whoami(): JsonRecord;
  getTeam(): DomainResult<JsonRecord>;
  listTeamMembers(): DomainResult<JsonRecord[]>;
  createInvitation(body: unknown): DomainResult<JsonRecord>;
  listInvitations(): DomainResult<JsonRecord[]>;
  deleteInvitation(id: string): DomainResult<JsonRecord>;
  removeTeamMember(id: string): DomainResult<JsonRecord>;

  /** `oss`: open-source HyperDX (no RBAC); `enterprise`: ClickStack with RBAC (roles, role assignment, default role). */
  readonly edition: Edition;
  /** Enterprise only (the HTTP layer does not route them on oss). */
  setMemberRole(id: string, body: unknown): DomainResult<JsonRecord>;
  removeMemberRole(id: string): DomainResult<JsonRecord>;
  setDefaultUserRole(body: unknown): DomainResult<JsonRecord>;
  listRoles(): DomainResult<JsonRecord[]>;
  getRole(id: string): DomainResult<JsonRecord>;
  createRole(body: unknown): DomainResult<JsonRecord>;
  updateRole(id: string, body: unknown): DomainResult<JsonRecord>;
  deleteRole(id: string): DomainResult<JsonRecord>;

  /** `POST /search`: raw rows of a source (synthetic, deterministic). Answers `{data, rows, nextCursor}` (null but in a walk). */
  search(body: unknown): DomainResult<JsonRecord>;

  listWebhooks(query: PageQuery): DomainResult<JsonRecord[]>;
  createWebhook(body: unknown): DomainResult<JsonRecord>;
  updateWebhook(id: string, body: unknown): DomainResult<JsonRecord>;
  deleteWebhook(id: string): DomainResult<JsonRecord>;

  listSavedSearches(query: PageQuery): DomainResult<JsonRecord[]>;
  getSavedSearch(id: string): DomainResult<JsonRecord>;
  createSavedSearch(body: unknown): DomainResult<JsonRecord>;
  updateSavedSearch(id: string, body: unknown): DomainResult<JsonRecord>;
  /** Deletes its alerts too. */
  deleteSavedSearch(id: string): DomainResult<JsonRecord>;

  /** `POST /charts/series`: deterministic synthetic rows (same request → same numbers). */
  chartSeries(body: unknown): DomainResult<JsonRecord[]>;

  /** Serialisable state (for `--data` persistence) and its inverse. */
  snapshot(): JsonRecord;
  /** Incremented on every committed change; the HTTP layer persists when it moves. */
  readonly version: number;
}

export type Edition = 'oss' | 'enterprise';

export interface StoredTelemetry {
  rows(table: 'otel_traces' | 'otel_logs' | 'otel_metrics'): Record<string, unknown>[];
}

export interface DomainOptions {
  /** Default `oss`. Enterprise seeds the predefined roles on its first start (see ./team-rbac.ts). */
  edition?: Edition;
  /** Clock for timestamps (alerts' createdAt/updatedAt, webhooks). */
  now?: () => Date;
  /** `demo` seeds a log, a trace and a metric source (with their connection), a slack and a generic webhook, and a saved search. */
  seed?: 'demo' | 'none';
  /** Restore a previous snapshot instead of seeding. */
  snapshot?: JsonRecord;
  /** With `seed: 'none'`, the team to create (another team of the same sandbox); default the demo team's ids. */
  team?: { id: string; name: string; userId: string; userEmail: string };
  /** What the OTLP receiver stored (src/sandbox/otlp): searching a source on otel_traces or otel_logs reads it. */
  telemetry?: StoredTelemetry;
  /** The team's feature flags (default none): `alertInterval30s` lets the Cloud API take `interval: 30s` alerts. */
  teamFlags?: readonly TeamFlag[];
}

/** Feature flags the service turns on per team (hosted-api.md §0.1: the Cloud API's 30s alerts). */
export type TeamFlag = 'alertInterval30s';

/** Implemented in ./index.ts. */
export type CreateObservabilityDomain = (opts?: DomainOptions) => ObservabilityDomain;
