/**
 * The ports between obsync's engine and the service. `src/remote` implements them for both
 * variants over HTTP. Every kind's objects are reached through one generic collection port,
 * built from the routes the kind's definition declares (src/kinds/<kind>); capabilities that
 * are not kinds (API keys, chart queries) have their own ports, obtained through
 * `requireCapability`.
 */
import { CapabilityError } from './errors.js';
import type { ItemMemo } from './item-memo.js';
import type { AnyKind } from './kind-name.js';
import type { LiveObject } from './live.js';
import type { JsonObject, WireApiKey, WireKeyCreated, WireSeriesRow } from './wire.js';

export type Variant = 'hosted' | 'self-hosted';

export interface CallOptions {
  /** Abort the call (and its retries) when this fires. */
  signal?: AbortSignal;
  /** Retries after a 5xx or a lost connection (default: the target's); a backtest asks for none. */
  retries?: number;
  /**
   * An error answer the caller handles as a result (an idle service's 424 it wakes, a vanished
   * object's 404 it creates again): the request's telemetry span is not marked failed.
   */
  expected?: ExpectedAnswer | undefined;
}

/** Whether an answer of 400 or more is one the caller expects (telemetry: no Error span for it). */
export type ExpectedAnswer = (answer: { readonly status: number; readonly text: string }) => boolean;

/** Either check (the caller's and a request's own). */
export function eitherExpected<A>(a: ((answer: A) => boolean) | undefined, b: ((answer: A) => boolean) | undefined) {
  return a && b ? (answer: A) => a(answer) || b(answer) : (a ?? b);
}

/** One extra update call of a kind (pipes: patch, settings, scaling, state). */
export interface KindCall {
  method: 'PUT' | 'PATCH' | 'POST';
  /** Below the object's path: '' for the object itself, '/settings'… */
  path: string;
  /** A retry is safe (the transport retries idempotent calls on 5xx and lost connections). */
  idempotent: boolean;
}

/** Where and how one API variant serves a kind (declared by the kind, used by src/remote). */
export interface KindRoutes {
  /**
   * The API the kind lives under: the observability API, the hosted pipes API, or the hosted
   * service itself (collections beside the pipes API: `clickpipesSshKeyResources`).
   */
  api: 'observability' | 'pipes' | 'service';
  /** Collection path below that API, e.g. `dashboards`. */
  path: string;
  /** `offset`: limit/offset pages of 1,000 (total from X-Total-Count or meta.total); `none`: one response. */
  paging: 'none' | 'offset';
  /**
   * How one object is read: `GET …/{id}` (the default), or its list, filtered by id, where the
   * API has no GET by id (webhooks, hosted-api §2; as the Terraform provider reads them).
   */
  read?: 'by-id' | 'list';
  /**
   * List items the list answers without some of their fields, to be read again by id (inline
   * alerts: the list leaves out `chartConfig`, hyperdx v2/utils/alertChartConfig.ts).
   */
  readAgain?: { field: string; equals: string };
  /** How a whole object is replaced; absent when the kind changes only through `calls`. */
  update?: 'PUT' | 'PATCH';
  /** Extra update calls by name. */
  calls?: Readonly<Record<string, KindCall>>;
  /**
   * A kind several endpoints serve (the access kinds): src/remote/team.ts composes its port
   * instead of one collection at `path`.
   */
  port?: 'team-members' | 'team-settings' | 'roles';
}

/** How a list is read: with an item memo, the items unchanged since its last read are reused, not parsed again. */
export interface ListOptions extends CallOptions {
  /** One per collection (it holds only what that collection's schema parsed). */
  memo?: ItemMemo;
}

export interface CollectionPort<T extends { id: string } = { id: string }> {
  list(opts?: ListOptions): Promise<T[]>;
  /** `null` when the object does not exist. */
  get(id: string, opts?: CallOptions): Promise<T | null>;
  /** Never retried blindly: a lost response surfaces as `AmbiguousWriteError`. */
  create(body: JsonObject, opts?: CallOptions): Promise<T>;
  update(id: string, body: JsonObject, opts?: CallOptions): Promise<T>;
  /** Resolves also when the object was already gone. */
  delete(id: string, opts?: CallOptions): Promise<void>;
  /** One of the kind's extra update calls, by name. */
  call(name: string, id: string, body: JsonObject, opts?: CallOptions): Promise<void>;
  /** Re-reads the object until `done` answers true or the timeout passes; null when it is gone. */
  waitUntil(id: string, done: (live: T) => boolean, opts?: CallOptions & { timeoutMs?: number }): Promise<T | null>;
}

export interface KeyCreateRequest {
  name: string;
  /** Organization role UUIDs (the current way to give a key its roles). */
  assignedRoleIds?: string[];
  /** Deprecated legacy role names (admin, developer, query_endpoints), still accepted. */
  roles?: string[];
  state?: 'enabled' | 'disabled';
  expireAt?: string | null;
  ipAccessList?: { source: string; description?: string }[];
}

/** A change to an existing key (`PATCH …/keys/{id}`): only what is given changes. */
export interface KeyUpdateRequest {
  state?: 'enabled' | 'disabled';
}

export interface KeysPort {
  list(opts?: CallOptions): Promise<WireApiKey[]>;
  /** The result holds the secret once; callers must never log it. */
  create(req: KeyCreateRequest, opts?: CallOptions): Promise<WireKeyCreated>;
  /** `id`: the key's resource id (`WireApiKey.id`), not the id it authenticates with. */
  update(id: string, req: KeyUpdateRequest, opts?: CallOptions): Promise<WireApiKey>;
  delete(id: string, opts?: CallOptions): Promise<void>;
}

export interface SeriesQuery extends JsonObject {
  series: JsonObject[];
  startTime: number;
  endTime: number;
}

export interface ChartsPort {
  series(query: SeriesQuery, opts?: CallOptions): Promise<WireSeriesRow[]>;
}

/**
 * A raw-row search (`POST /api/v2/search`). The range is pinned: a walk's pages all read the same range. Other
 * fields of the route (`orderBy`) go as they are; every page of a walk sends the same ones.
 */
export interface SearchQuery extends JsonObject {
  sourceId: string;
  startTime: string;
  endTime: string;
  where: string;
  whereLanguage: 'lucene' | 'sql';
  select: string;
  maxResults: number;
}

/** The rows of a search walk; `complete` is false when the request budget ended it before the service did. */
export interface SearchRows {
  rows: JsonObject[];
  complete: boolean;
  requests: number;
}

export interface SearchPort {
  /**
   * Every page of the search, by the service's cursor (offset paging on a service that has none), in at most `maxRequests`
   * requests; with `maxRows`, the walk stops once it holds that many rows (it may hold a page more).
   */
  rows(query: SearchQuery, opts: CallOptions & { maxRequests: number; maxRows?: number }): Promise<SearchRows>;
}

export interface Capabilities {
  keys?: KeysPort;
  charts?: ChartsPort;
  search?: SearchPort;
}

/** One target's service, as the engine sees it. */
export interface ServicePort extends Capabilities {
  readonly target: string;
  readonly variant: Variant;
  /** The objects of one kind; null when this variant does not serve the kind (pipes are hosted only). */
  collection(kind: AnyKind): CollectionPort<LiveObject> | null;
  /** Requests made so far (for reports and metrics). */
  readonly stats: RequestStats;
  close(): Promise<void>;
}

export interface RequestStats {
  requests: number;
  writes: number;
  retries: number;
  throttled: number;
}

const CAPABILITY_LABEL: Record<keyof Capabilities, string> = {
  keys: 'API keys (hosted variant only)',
  charts: 'chart series queries (self-hosted variant only)',
  search: 'raw-row searches (self-hosted variant only)',
};

/** The explicit capability check: returns the port or throws a clear `CapabilityError`. */
export function requireCapability<K extends keyof Capabilities>(port: ServicePort, capability: K): NonNullable<Capabilities[K]> {
  const found = port[capability];
  if (!found)
    throw new CapabilityError(
      port.target,
      port.variant,
      CAPABILITY_LABEL[capability],
      'choose a target of the other variant with --target',
    );
  return found;
}

/** The collection of a kind, or a clear `CapabilityError` when the target's variant does not serve it. */
export function requireCollection(port: ServicePort, kind: AnyKind): CollectionPort<LiveObject> {
  const found = port.collection(kind);
  if (!found) throw new CapabilityError(port.target, port.variant, `${kind} objects`, 'choose a target of the other variant with --target');
  return found;
}
