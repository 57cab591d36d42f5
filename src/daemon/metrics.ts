/** Prometheus metrics of the daemon (DESIGN §6). Labels are low-cardinality only: no object names, no messages. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric, type OpenMetricsContentType } from 'prom-client';
import type { Exposition } from './accept.js';
import type { ObsyncEvent } from '../events/vocabulary.js';

export type RunResult = 'success' | 'failure' | 'invalid_manifests';
export type ResourceState = 'in_sync' | 'drifted' | 'error';
export type ResourceCounts = Record<string, Record<ResourceState, number>>;

/** prom-client's default gauges whose names end in _total: left out (see the constructor). */
export const SUMMED_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: 'obsync_reconcile_total',
    help: 'Reconcile runs by result.',
    labelNames: ['target', 'result'],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'obsync_reconcile_duration_seconds',
    help: 'Duration of reconcile runs.',
    labelNames: ['target', 'result'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly resources = new Gauge({
    name: 'obsync_resources',
    help: 'Managed objects by kind and state after the last run.',
    labelNames: ['target', 'kind', 'state'],
    registers: [this.registry],
  });
  readonly driftTotal = new Counter({
    name: 'obsync_drift_total',
    help: 'Drift events, by kind of object (apply mode: owned objects changed or deleted on the service; plan mode: every pending change).',
    labelNames: ['target', 'kind'],
    registers: [this.registry],
  });
  readonly apiRequests = new Counter({
    name: 'obsync_api_requests_total',
    help: 'Requests to the service, by method and status code (0 = no response).',
    labelNames: ['target', 'method', 'code'],
    registers: [this.registry],
  });
  readonly lastSuccess = new Gauge({
    name: 'obsync_last_success_timestamp_seconds',
    help: 'Unix time of the last successful run.',
    labelNames: ['target'],
    registers: [this.registry],
  });
  readonly manifestErrors = new Gauge({
    name: 'obsync_manifest_errors',
    help: "Errors in the target's manifests at the last load (0 when valid).",
    labelNames: ['target'],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'obsync_leader',
    help: 'Whether this replica leads the target (1) or is standby (0); apply mode only.',
    labelNames: ['target'],
    registers: [this.registry],
  });
  readonly targetsHeld = new Gauge({
    name: 'obsync_targets_held',
    help: 'Targets this replica leads now (holds the writer lease of); apply mode only.',
    registers: [this.registry],
  });
  readonly targetsAssigned = new Gauge({
    name: 'obsync_targets_assigned',
    help: 'Targets the replica registry assigns to this replica (PostgreSQL state: replicas share the targets).',
    registers: [this.registry],
  });
  readonly replicasLive = new Gauge({
    name: 'obsync_replicas_live',
    help: 'Live replicas sharing the targets, this one included, at the last heartbeat (PostgreSQL state).',
    registers: [this.registry],
  });
  readonly replicaDisagreements = new Gauge({
    name: 'obsync_replica_disagreements',
    help: 'Differences (target lists, versions, lease settings) between this replica and the other live ones.',
    registers: [this.registry],
  });
  readonly events = new Counter({
    name: 'obsync_events_total',
    help: 'Events by name (run-finished, drift, failed…; see docs/events.md).',
    labelNames: ['target', 'event'],
    registers: [this.registry],
  });
  readonly notifications = new Counter({
    name: 'obsync_notifications_total',
    help: 'Notifications by sink (its position in notifications:) and result (sent, failed, dropped).',
    labelNames: ['sink', 'type', 'result'],
    registers: [this.registry],
  });
  readonly statusClients = new Gauge({
    name: 'obsync_status_stream_clients',
    help: 'Clients connected to /api/events/stream.',
    registers: [this.registry],
  });
  readonly statusRefused = new Counter({
    name: 'obsync_status_stream_refused_total',
    help: 'Connections to /api/events/stream refused because the client limit was reached.',
    registers: [this.registry],
  });
  #slots: { running: number; waiting: number; limit: number } | undefined;
  readonly runsRunning: Gauge = new Gauge({
    name: 'obsync_runs_running',
    help: 'Targets reconciling now in this process (at most obsync_parallel_runs).',
    registers: [this.registry],
    collect: (): void => this.runsRunning.set(this.#slots?.running ?? 0),
  });
  readonly runsQueued: Gauge = new Gauge({
    name: 'obsync_runs_queued',
    help:
      'Runs waiting for a --parallel-runs slot of this process; lasting above 0, the process has more ' +
      'targets than it can reconcile at once.',
    registers: [this.registry],
    collect: (): void => this.runsQueued.set(this.#slots?.waiting ?? 0),
  });
  readonly parallelRuns: Gauge = new Gauge({
    name: 'obsync_parallel_runs',
    help: 'How many targets this process reconciles at once (--parallel-runs).',
    registers: [this.registry],
    collect: (): void => this.parallelRuns.set(this.#slots?.limit ?? 0),
  });
  readonly buildInfo = new Gauge({
    name: 'obsync_build_info',
    help: 'Build information.',
    labelNames: ['version'],
    registers: [this.registry],
  });

  constructor(version: string) {
    collectDefaultMetrics({ register: this.registry });
    // promtool check metrics refuses a gauge named *_total (the suffix is for counters); these
    // three are only the sums of nodejs_active_handles{type}, _requests{type}, _resources{type}.
    for (const name of SUMMED_GAUGES) this.registry.removeSingleMetric(name);
    this.buildInfo.set({ version }, 1);
  }

  /**
   * Called for every event: obsync_drift_total counts the drift events and nothing else, so the
   * counter and the event stream cannot disagree (a first-time create is no drift).
   */
  observeEvent(event: ObsyncEvent): void {
    if (event.event === 'drift') this.driftTotal.inc({ target: event.target, kind: event.address.split('/')[0] ?? 'unknown' });
  }

  /** The run slots whose use obsync_runs_running, _queued and obsync_parallel_runs report at each scrape. */
  observeSlots(slots: { running: number; waiting: number; limit: number }): void {
    this.#slots = slots;
  }

  /** Series set by the last run of each target: the next run of that target replaces them, and only them. */
  readonly #resourceSeries = new Map<string, { kind: string; state: string }[]>();

  setResources(target: string, counts: ResourceCounts): void {
    for (const labels of this.#resourceSeries.get(target) ?? []) this.resources.remove({ target, ...labels });
    const series: { kind: string; state: string }[] = [];
    for (const [kind, byState] of Object.entries(counts)) {
      for (const [state, n] of Object.entries(byState)) {
        this.resources.set({ target, kind, state }, n);
        series.push({ kind, state });
      }
    }
    this.#resourceSeries.set(target, series);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** `/metrics` in the format the scraper asked for (./accept.ts), with its content type. */
  async exposition(format: Exposition): Promise<{ body: string; contentType: string }> {
    if (format === 'text') return { body: await this.registry.metrics(), contentType: this.registry.contentType };
    // prom-client writes OpenMetrics by renaming each counter it renders in place (…_total → …), which would
    // rename it for the text format too: it renders stand-ins made per scrape, reading each metric through their prototype.
    const openMetrics = new Registry<OpenMetricsContentType>();
    openMetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    for (const metric of this.registry.getMetricsAsArray()) openMetrics.registerMetric(Object.create(metric) as Metric);
    return { body: await openMetrics.metrics(), contentType: openMetrics.contentType };
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
