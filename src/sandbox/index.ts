/** `startSandbox()`: both API variants on one loopback port, for `obsync sandbox`, the embedded target and tests. */
import type { AddressInfo } from 'node:net';
import { SANDBOX_DEFAULTS } from './defaults.js';
import type { Edition, JsonRecord, ObservabilityDomain, TeamFlag } from './domain/contract.js';
import { newObjectId } from './domain/ids.js';
import { createObservabilityDomain } from './domain/index.js';
import { Faults, type FaultSpec } from './http/faults.js';
import type { Credentials, Domains } from './http/handlers.js';
import { hostedDomains } from './http/hosted-domains.js';
import { Persistence } from './http/persistence.js';
import { FixedWindowLimiter, type Limit } from './http/rate-limit.js';
import { createSandboxServer, type LoggedRequest } from './http/server.js';
import { OtlpStore, startOtlpReceiver, type OtlpReceiver } from './otlp/index.js';

export type { FaultSpec } from './http/faults.js';
export { parseFaultSpec } from './http/faults.js';
export type { TeamFlag } from './domain/contract.js';

export interface SandboxOptions {
  host?: string;
  port?: number;
  dataDir?: string | undefined;
  /** Write changes back to `dataDir` (default). Off: start from its files, keep changes in memory. */
  persist?: boolean;
  seed?: 'demo' | 'none';
  /** The self-hosted server's edition: `oss` (default, open-source HyperDX) or `enterprise` (ClickStack with RBAC). */
  edition?: Edition;
  apiKey?: string;
  keyId?: string;
  keySecret?: string;
  organizationId?: string;
  serviceId?: string;
  /** `real`: 100/60 s per key self-hosted, 10/10 s hosted (the published limits). */
  rateLimit?: 'real' | 'off' | { selfHosted?: Limit | null; hosted?: Limit | null };
  faults?: FaultSpec;
  /** How long pipe state transitions take (default 300 ms). */
  pipeTransitionMs?: number;
  /** Further self-hosted teams, each empty, with its own Bearer key (cross-team behaviour). */
  teams?: { apiKey: string; name?: string }[];
  /** Receive OTLP/HTTP on this port of the same host (0: any free port; ClickStack's is 4318); absent: no receiver. */
  otlpPort?: number;
  /** Feature flags of the hosted service's team (default none, as a new Cloud service): `alertInterval30s` allows 30s alerts. */
  hostedTeamFlags?: readonly TeamFlag[];
}

export interface SandboxHandle {
  url: string;
  port: number;
  credentials: Credentials;
  requests(): LoggedRequest[];
  /** The stored state of a self-hosted team (the default key's team when none is given), as persisted. */
  selfHostedState(apiKey?: string): JsonRecord;
  clearRequests(): void;
  faults: { set(spec: FaultSpec): void; clear(): void; injected: Faults['injected'] };
  /** The hosted service: idle it (ClickPipes then answer 424 until a client wakes it) or read its state. */
  service: { idle(): void; state(): string };
  /** The OTLP receiver, when `otlpPort` was given: its endpoint and what it stored. */
  otlp?: OtlpReceiver;
  close(): Promise<void>;
}

const REAL = { selfHosted: { limit: 100, windowMs: 60_000 }, hosted: { limit: 10, windowMs: 10_000 } };

export async function startSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const credentials: Credentials = {
    apiKey: opts.apiKey ?? SANDBOX_DEFAULTS.apiKey,
    keyId: opts.keyId ?? SANDBOX_DEFAULTS.keyId,
    keySecret: opts.keySecret ?? SANDBOX_DEFAULTS.keySecret,
    organizationId: opts.organizationId ?? SANDBOX_DEFAULTS.organizationId,
    serviceId: opts.serviceId ?? SANDBOX_DEFAULTS.serviceId,
  };
  const persistence = new Persistence(opts.dataDir, opts.persist ?? true);
  const seed = opts.seed ?? 'demo';
  const telemetry = opts.otlpPort === undefined ? undefined : new OtlpStore();
  const withTelemetry = telemetry ? { telemetry } : {};
  const observability = (name: string, edition?: Edition, teamFlags?: readonly TeamFlag[]) => {
    const snapshot = persistence.load(name);
    const domain = createObservabilityDomain({
      ...(snapshot ? { snapshot } : { seed }),
      ...(edition ? { edition } : {}),
      ...(teamFlags ? { teamFlags } : {}),
      ...withTelemetry,
    });
    persistence.track(name, domain);
    return domain;
  };
  const teams = new Map<string, ObservabilityDomain>();
  (opts.teams ?? []).forEach((t, i) => {
    const name = `observability-selfhosted-team-${i + 1}`;
    const snapshot = persistence.load(name);
    const now = new Date();
    const team = {
      id: newObjectId(now),
      name: t.name ?? `Sandbox team ${i + 2}`,
      userId: newObjectId(now),
      userEmail: `member-${i + 2}@sandbox.localhost`,
    };
    const domain = createObservabilityDomain({
      ...(snapshot ? { snapshot } : { seed: 'none' as const, team }),
      edition: opts.edition ?? 'oss',
      ...withTelemetry,
    });
    persistence.track(name, domain);
    teams.set(t.apiKey, domain);
  });
  const extra = hostedDomains({ persistence, credentials, seed, transitionMs: opts.pipeTransitionMs ?? 300 });
  const domains: Domains = {
    selfHosted: observability('observability-selfhosted', opts.edition ?? 'oss'),
    selfHostedTeams: teams,
    hosted: observability('observability-hosted', undefined, opts.hostedTeamFlags),
    ...extra,
  };
  const rate = opts.rateLimit ?? 'real';
  const limits =
    rate === 'real'
      ? REAL
      : rate === 'off'
        ? { selfHosted: null, hosted: null }
        : { selfHosted: rate.selfHosted ?? null, hosted: rate.hosted ?? null };
  const faults = new Faults();
  if (opts.faults) faults.set(opts.faults);
  const log: LoggedRequest[] = [];
  const server = createSandboxServer({
    domains,
    credentials,
    limiters: { selfHosted: new FixedWindowLimiter(limits.selfHosted), hosted: new FixedWindowLimiter(limits.hosted) },
    faults,
    persistence,
    log,
  });
  const host = opts.host ?? SANDBOX_DEFAULTS.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? SANDBOX_DEFAULTS.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const otlp =
    telemetry && opts.otlpPort !== undefined
      ? await startOtlpReceiver({ host, port: opts.otlpPort, store: telemetry }).catch(closing(server))
      : undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    credentials,
    requests: () => [...log],
    selfHostedState: (apiKey) => {
      const domain = apiKey === undefined || apiKey === credentials.apiKey ? domains.selfHosted : teams.get(apiKey);
      if (!domain) throw new Error('selfHostedState: no team has that key');
      return domain.snapshot();
    },
    clearRequests: () => void log.splice(0),
    faults: { set: (s) => faults.set(s), clear: () => faults.clear(), injected: faults.injected },
    service: {
      idle: () => extra.service.idle(),
      state: () => {
        extra.service.tick();
        return extra.service.blockingState() ?? 'running';
      },
    },
    ...(otlp ? { otlp } : {}),
    close: async () => {
      await Promise.all([
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
        otlp?.close(),
      ]);
    },
  };
}

/** The API server closed when the receiver cannot listen, and the receiver's error passed on. */
function closing(server: { close(): unknown; closeAllConnections(): void }) {
  return (err: unknown): never => {
    server.close();
    server.closeAllConnections();
    throw err;
  };
}
