/** The live state one plan is made against: everything read from the service in one pass. */
import type { WireAlert, WireDashboard, WirePipe, WireSavedSearch, WireSource, WireWebhook } from './wire.js';

export interface LiveState {
  dashboards: WireDashboard[];
  alerts: WireAlert[];
  /** Absent when the target has no pipes capability or no Pipe manifests were given. */
  pipes?: WirePipe[];
  sources: WireSource[];
  webhooks: WireWebhook[];
  savedSearches: WireSavedSearch[];
  /** Version (hash) of a live object by server id, computed by the engine on first ask (only changing steps record one). */
  versionOf(id: string): string | undefined;
}

export interface Named {
  id: string;
  name: string;
}

/** Objects obsync refers to by name (sources, webhooks, saved searches). */
export interface NameIndex {
  byId: Map<string, Named>;
  byName: Map<string, Named[]>;
}

export function indexByName(objects: readonly Named[]): NameIndex {
  const byId = new Map<string, Named>();
  const byName = new Map<string, Named[]>();
  for (const o of objects) {
    byId.set(o.id, { id: o.id, name: o.name });
    const list = byName.get(o.name) ?? [];
    list.push({ id: o.id, name: o.name });
    byName.set(o.name, list);
  }
  return { byId, byName };
}
