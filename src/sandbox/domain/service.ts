/**
 * The hosted service itself, as far as ClickPipes care (reference/hosted-api.md §3.4, §5;
 * terraform-provider internal/api/clickpipe.go and service.go): its state, `GET
 * /services/{id}`, and `PATCH …/state` with `start`, `stop` and `awake`. While the service is
 * not running every ClickPipes request fails with 424, and an idle service stays idle until it
 * is woken (the provider wakes it and polls `GET /services/{id}` until `running`).
 */
import type { DomainResult, JsonRecord } from './contract.js';
import { badRequest, ok } from './result.js';
import { isPlainObject } from './pipes-settings.js';

export interface ServiceDomain {
  get(): DomainResult<JsonRecord>;
  /** `{command: start|stop|awake}`; transitions are asynchronous (advanced by `tick`). */
  setState(body: unknown): DomainResult<JsonRecord>;
  /** The state ClickPipes requests are refused in, or null while the service runs. */
  blockingState(): string | null;
  /** The service idles (as after its idle timeout) and stays idle until woken. */
  idle(): void;
  tick(): void;
  snapshot(): JsonRecord;
  readonly version: number;
}

export interface ServiceDomainOptions {
  serviceId: string;
  now?: () => Date;
  /** How long starting, stopping and waking take (default 300 ms). */
  transitionMs?: number;
  snapshot?: JsonRecord;
}

interface ServiceState {
  state: string;
  transition: { to: string; at: string } | null;
}

const CREATED_AT = '2026-08-01T09:00:00.000Z';

/**
 * How the service scales, as the real API serves it for a service with vertical autoscaling (the
 * default): the configured baseline at the top level, and `currentScaling` with the values in
 * effect — the same while no scaling schedule entry is active (so no `activeEntryId`). The spec
 * marks `autoscalingMode` and `currentScaling` required, and the Terraform provider reads the
 * mode (`deriveAutoscalingMode`). Vertical: a fixed replica count (`numReplicas`, min = max in
 * effect), memory per replica in a range; the deprecated totals are for three replicas; the
 * horizontal-only fields (minReplicas, maxReplicas, replicaMemoryGb) are absent.
 */
function scalingFields(): JsonRecord {
  const baseline = { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 16, numReplicas: 3, idleScaling: true, idleTimeoutMinutes: 15 };
  return {
    autoscalingMode: 'vertical',
    ...baseline,
    minTotalMemoryGb: baseline.minReplicaMemoryGb * 3,
    maxTotalMemoryGb: baseline.maxReplicaMemoryGb * 3,
    currentScaling: {
      effectiveAutoscalingMode: 'vertical',
      effectiveMinReplicaMemoryGb: baseline.minReplicaMemoryGb,
      effectiveMaxReplicaMemoryGb: baseline.maxReplicaMemoryGb,
      effectiveMinReplicas: baseline.numReplicas,
      effectiveMaxReplicas: baseline.numReplicas,
      effectiveIdleScaling: baseline.idleScaling,
      effectiveIdleTimeoutMinutes: baseline.idleTimeoutMinutes,
    },
  };
}

/** The 424 the ClickPipes API answers while the service is not running (message as the provider's tests quote it). */
export function notRunningMessage(state: string): string {
  return `ClickPipe creation is allowed only when the ClickHouse service is running. Current state: ${state}`;
}

export function createServiceDomain(opts: ServiceDomainOptions): ServiceDomain {
  const now = opts.now ?? (() => new Date());
  const transitionMs = opts.transitionMs ?? 300;
  const restored = opts.snapshot;
  const current: ServiceState =
    restored && typeof restored.state === 'string'
      ? { state: restored.state, transition: (restored.transition ?? null) as ServiceState['transition'] }
      : { state: 'running', transition: null };
  let version = 0;

  const record = (): JsonRecord => ({
    id: opts.serviceId,
    name: 'sandbox',
    provider: 'aws',
    region: 'us-east-1',
    state: current.state,
    tier: 'production',
    ...scalingFields(),
    createdAt: CREATED_AT,
  });

  const begin = (during: string, to: string): void => {
    current.state = during;
    current.transition = { to, at: new Date(now().getTime() + transitionMs).toISOString() };
    version += 1;
  };

  function setState(body: unknown): DomainResult<JsonRecord> {
    const command = isPlainObject(body) ? body.command : undefined;
    if (command !== 'start' && command !== 'stop' && command !== 'awake') return badRequest('command must be one of start, stop, awake');
    const { state } = current;
    if (command === 'awake') {
      // A no-op on a service that runs or is waking up (provider's wakeService); a stopped service needs `start`.
      if (state === 'idle') begin('awaking', 'running');
      else if (state === 'stopped' || state === 'stopping')
        return badRequest(`The service is ${state}; awake only wakes an idle service, use start`);
    } else if (command === 'start') {
      if (state === 'stopped' || state === 'idle') begin('starting', 'running');
      else if (state === 'stopping') return badRequest('The service is stopping; start it once it has stopped');
    } else if (state !== 'stopped' && state !== 'stopping') {
      begin('stopping', 'stopped');
    }
    return ok(record());
  }

  return {
    get: () => ok(record()),
    setState,
    blockingState: () => (current.state === 'running' ? null : current.state),
    idle() {
      if (current.state !== 'running') return;
      current.state = 'idle';
      current.transition = null;
      version += 1;
    },
    tick() {
      if (current.transition !== null && Date.parse(current.transition.at) <= now().getTime()) {
        current.state = current.transition.to;
        current.transition = null;
        version += 1;
      }
    },
    snapshot: () => ({ state: current.state, transition: current.transition }),
    get version() {
      return version;
    },
  };
}
