/** Reads the live state one plan needs: one list per collection (O(kinds) requests, not O(objects)). */
import { createHash } from 'node:crypto';
import type { LiveState } from '../core/live.js';
import type { CallOptions, ServicePort } from '../core/ports.js';
import type { Json } from '../core/wire.js';
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
  const versions = new Map<string, string>();
  for (const d of dashboards) versions.set(d.id, versionOf(d));
  for (const a of alerts) versions.set(a.id, versionOf(a, VOLATILE));
  for (const p of pipes ?? []) versions.set(p.id, versionOf(p));
  return { dashboards, alerts, sources, webhooks, savedSearches, versions, ...(pipes ? { pipes } : {}) };
}

export function versionOf(object: object, ignore: ReadonlySet<string> = new Set()): string {
  const kept = Object.fromEntries(Object.entries(object).filter(([k]) => !ignore.has(k))) as Json;
  return createHash('sha256').update(stableJson(kept)).digest('base64url').slice(0, 22);
}
