/** Reads the live state one plan needs: one list per collection (O(kinds) requests, not O(objects)). */
import { createHash } from 'node:crypto';
import type { LiveState } from '../core/live.js';
import type { CallOptions, ServicePort } from '../core/ports.js';
import type { Json, WireAlert, WireDashboard, WirePipe } from '../core/wire.js';
import { stableJson } from '../planner/diff.js';

/** Fields the service changes on its own (alert checker state); they do not make an object "moved". */
const VOLATILE = new Set(['state', 'silenced', 'executionErrors']);

export async function readLive(port: ServicePort, opts: { pipes: boolean } & CallOptions): Promise<LiveState> {
  const call = opts.signal ? { signal: opts.signal } : {};
  const [dashboards, alerts, sources, webhooks, savedSearches, pipes] = await Promise.all([
    port.dashboards.list(call),
    port.alerts.list(call),
    port.sources.list(call),
    port.webhooks.list(call),
    port.savedSearches.list(call),
    opts.pipes && port.pipes ? port.pipes.list(call) : Promise.resolve(undefined),
  ]);
  return { dashboards, alerts, sources, webhooks, savedSearches, versionOf: lazyVersions(dashboards, alerts, pipes ?? []), ...(pipes ? { pipes } : {}) };
}

/** Hashing every live object costs a fifth of a plan; only the objects a step changes need it. */
function lazyVersions(dashboards: readonly WireDashboard[], alerts: readonly WireAlert[], pipes: readonly WirePipe[]): (id: string) => string | undefined {
  let objects: Map<string, () => string> | undefined;
  const computed = new Map<string, string>();
  return (id) => {
    const known = computed.get(id);
    if (known !== undefined) return known;
    objects ??= new Map([
      ...dashboards.map((d) => [d.id, () => versionOf(d)] as const),
      ...alerts.map((a) => [a.id, () => versionOf(a, VOLATILE)] as const),
      ...pipes.map((p) => [p.id, () => versionOf(p)] as const),
    ]);
    const version = objects.get(id)?.();
    if (version !== undefined) computed.set(id, version);
    return version;
  };
}

export function versionOf(object: object, ignore: ReadonlySet<string> = new Set()): string {
  const kept = Object.fromEntries(Object.entries(object).filter(([k]) => !ignore.has(k))) as Json;
  return createHash('sha256').update(stableJson(kept)).digest('base64url').slice(0, 22);
}
