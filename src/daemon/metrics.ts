/** Prometheus metrics of the daemon (DESIGN §6). Labels are low-cardinality only: no object names, no messages. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type RunResult = 'success' | 'failure' | 'invalid_manifests';
export type ResourceState = 'in_sync' | 'drifted' | 'error';

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({ name: 'obsync_reconcile_total', help: 'Reconcile runs by result.', labelNames: ['target', 'result'], registers: [this.registry] });
  readonly reconcileDuration = new Histogram({
    name: 'obsync_reconcile_duration_seconds',
    help: 'Duration of reconcile runs.',
    labelNames: ['target', 'result'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly resources = new Gauge({ name: 'obsync_resources', help: 'Managed objects by kind and state after the last run.', labelNames: ['target', 'kind', 'state'], registers: [this.registry] });
  readonly driftTotal = new Counter({ name: 'obsync_drift_total', help: 'Drifted objects found, by kind.', labelNames: ['target', 'kind'], registers: [this.registry] });
  readonly apiRequests = new Counter({ name: 'obsync_api_requests_total', help: 'Requests to the service, by method and status code (0 = no response).', labelNames: ['target', 'method', 'code'], registers: [this.registry] });
  readonly lastSuccess = new Gauge({ name: 'obsync_last_success_timestamp_seconds', help: 'Unix time of the last successful run.', labelNames: ['target'], registers: [this.registry] });
  readonly manifestErrors = new Gauge({ name: 'obsync_manifest_errors', help: 'Errors in the manifests at the last load (0 when valid).', registers: [this.registry] });
  readonly leader = new Gauge({ name: 'obsync_leader', help: 'Whether this replica leads the target (1) or is standby (0); apply mode only.', labelNames: ['target'], registers: [this.registry] });
  readonly buildInfo = new Gauge({ name: 'obsync_build_info', help: 'Build information.', labelNames: ['version'], registers: [this.registry] });

  constructor(version: string) {
    collectDefaultMetrics({ register: this.registry });
    this.buildInfo.set({ version }, 1);
  }

  setResources(target: string, counts: Record<string, Record<ResourceState, number>>): void {
    this.resources.reset();
    for (const [kind, byState] of Object.entries(counts)) {
      for (const [state, n] of Object.entries(byState)) this.resources.set({ target, kind, state }, n);
    }
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
