/**
 * The ports between obsync's engine and the service. `src/remote` implements them for both
 * variants over HTTP; callers never know which variant they talk to, except for the optional
 * capabilities (pipes and keys are hosted only, chart queries self-hosted only), which they
 * obtain through `requireCapability`.
 */
import { CapabilityError } from './errors.js';
import type {
  JsonObject,
  WireAlert,
  WireApiKey,
  WireDashboard,
  WireDashboardValidation,
  WireKeyCreated,
  WirePipe,
  WirePipeSettings,
  WireSavedSearch,
  WireSeriesRow,
  WireSource,
  WireWebhook,
} from './wire.js';

export type Variant = 'hosted' | 'self-hosted';

export interface CallOptions {
  /** Abort the call (and its retries) when this fires. */
  signal?: AbortSignal;
}

export interface CrudPort<T> {
  list(opts?: CallOptions): Promise<T[]>;
  /** `null` when the object does not exist. */
  get(id: string, opts?: CallOptions): Promise<T | null>;
  /** Never retried blindly: a lost response surfaces as `AmbiguousWriteError`. */
  create(body: JsonObject, opts?: CallOptions): Promise<T>;
  update(id: string, body: JsonObject, opts?: CallOptions): Promise<T>;
  /** Resolves also when the object was already gone. */
  delete(id: string, opts?: CallOptions): Promise<void>;
}

export interface DashboardsPort extends CrudPort<WireDashboard> {
  /** Server-side dry-run validation; never persists. */
  validate(body: JsonObject, opts?: CallOptions): Promise<WireDashboardValidation>;
}

export type AlertsPort = CrudPort<WireAlert>;

export interface SourcesPort {
  list(opts?: CallOptions): Promise<WireSource[]>;
  get(id: string, opts?: CallOptions): Promise<WireSource | null>;
}

export interface WebhooksPort {
  list(opts?: CallOptions): Promise<WireWebhook[]>;
}

/** Saved searches are read to resolve saved-search alerts by name. */
export interface SavedSearchesPort {
  list(opts?: CallOptions): Promise<WireSavedSearch[]>;
}

export type PipeStateCommand = 'start' | 'stop' | 'resync';

export interface PipesPort {
  list(opts?: CallOptions): Promise<WirePipe[]>;
  get(id: string, opts?: CallOptions): Promise<WirePipe | null>;
  /** Sends only the members given. */
  patch(id: string, body: JsonObject, opts?: CallOptions): Promise<WirePipe>;
  getSettings(id: string, opts?: CallOptions): Promise<WirePipeSettings>;
  putSettings(id: string, settings: WirePipeSettings, opts?: CallOptions): Promise<WirePipeSettings>;
  patchScaling(id: string, scaling: JsonObject, opts?: CallOptions): Promise<WirePipe>;
  setState(id: string, command: PipeStateCommand, opts?: CallOptions): Promise<WirePipe>;
  /** Polls until the pipe leaves its transitional states (or the timeout passes) and returns it. */
  waitUntilSettled(id: string, opts?: CallOptions & { timeoutMs?: number }): Promise<WirePipe>;
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

export interface KeysPort {
  list(opts?: CallOptions): Promise<WireApiKey[]>;
  /** The result holds the secret once; callers must never log it. */
  create(req: KeyCreateRequest, opts?: CallOptions): Promise<WireKeyCreated>;
}

export interface SeriesQuery extends JsonObject {
  series: JsonObject[];
  startTime: number;
  endTime: number;
}

export interface ChartsPort {
  series(query: SeriesQuery, opts?: CallOptions): Promise<WireSeriesRow[]>;
}

export interface Capabilities {
  pipes?: PipesPort;
  keys?: KeysPort;
  charts?: ChartsPort;
}

/** One target's service, as the engine sees it. */
export interface ServicePort extends Capabilities {
  readonly target: string;
  readonly variant: Variant;
  readonly dashboards: DashboardsPort;
  readonly alerts: AlertsPort;
  readonly sources: SourcesPort;
  readonly webhooks: WebhooksPort;
  readonly savedSearches: SavedSearchesPort;
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
  pipes: 'pipes (hosted variant only)',
  keys: 'API keys (hosted variant only)',
  charts: 'chart series queries (self-hosted variant only)',
};

/** The explicit capability check: returns the port or throws a clear `CapabilityError`. */
export function requireCapability<K extends keyof Capabilities>(port: ServicePort, capability: K): NonNullable<Capabilities[K]> {
  const found = port[capability];
  if (!found) throw new CapabilityError(port.target, port.variant, CAPABILITY_LABEL[capability], 'choose a target of the other variant with --target');
  return found;
}
