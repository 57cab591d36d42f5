/**
 * What a plan can predict beyond its own objects' fields (issue 26), from the live state and the
 * bodies it will send, never from a request:
 * - a dashboard update whose tile query changes lists the alerts on that tile (a tile that goes,
 *   or can no longer carry an alert, is already in the step's cascade);
 * - a saved search whose query (where, language, filters, source) changes lists its alerts;
 * - a source or connection that changes or goes lists what reads it;
 * - a webhook whose destination changes, or that goes, lists the alerts notifying it;
 * - a delete the service would refuse (a webhook an alert still notifies first: 409) is kept
 *   back by prune with who holds it (`heldBy`).
 */
import type { ImpactItem, Impact } from '../core/backtest.js';
import { pushTo } from '../core/collections.js';
import type { LiveObject, LiveState } from '../core/live.js';
import type { AnyKind, CascadeItem, Kind, PlanStep } from '../core/plan.js';
import type { JsonObject } from '../core/wire.js';
import type { KindDefinition } from '../kinds/kind.js';
import { REGISTRY } from '../kinds/registry.js';
import type { Cascades } from './cascade.js';
import { splitPath } from './diff.js';
import type { PlannedView } from './planned-view.js';

interface Referrer {
  def: KindDefinition;
  live: LiveObject;
  part?: string;
}

/** Which live objects refer to which (the kinds' `liveRefs`), indexed on first use. */
export class Referrers {
  #index: Map<string, Referrer[]> | undefined;

  constructor(private readonly live: LiveState) {}

  /** The live objects that refer to an object (to one of its parts, when given). */
  of(kind: AnyKind, id: string, part?: string): Referrer[] {
    const all = this.#built().get(`${kind}\u0000${id}`) ?? [];
    return part === undefined ? all : all.filter((r) => r.part === part);
  }

  #built(): Map<string, Referrer[]> {
    if (this.#index) return this.#index;
    const index = new Map<string, Referrer[]>();
    for (const def of REGISTRY as readonly KindDefinition[]) {
      const refsOf = def.liveRefs?.bind(def);
      if (!refsOf) continue;
      for (const live of this.live.objects(def.kind) ?? []) {
        const seen = new Set<string>();
        for (const ref of refsOf(live)) {
          const key = `${ref.kind}\u0000${ref.id}`;
          if (seen.has(key + (ref.part ?? ''))) continue;
          seen.add(key + (ref.part ?? ''));
          pushTo(index, key, { def, live, ...(ref.part !== undefined ? { part: ref.part } : {}) });
        }
      }
    }
    this.#index = index;
    return index;
  }
}

const SEARCH_QUERY_FIELDS = new Set(['where', 'whereLanguage', 'filters', 'source']);
const WEBHOOK_DESTINATION = new Set(['url', 'service', 'headers', 'queryParams', 'body']);
const READ_KINDS = new Set<Kind>(['Source', 'Connection']);

export interface ImpactContext {
  view: PlannedView;
  referrers: Referrers;
  names: Cascades;
}

/** Adds each step's impact (in place); `deleted` holds `kind\0id` of everything this plan deletes. */
export function addImpacts(steps: readonly PlanStep[], ctx: ImpactContext, deleted: ReadonlySet<string>): void {
  for (const step of steps) {
    if (step.id === undefined || (step.action !== 'update' && step.action !== 'delete')) continue;
    const impacts = impactsOf(step, step.id, ctx, deleted);
    if (impacts.length > 0) step.impact = impacts;
  }
}

function impactsOf(step: PlanStep, id: string, ctx: ImpactContext, deleted: ReadonlySet<string>): Impact[] {
  const roots = new Set(step.changes.map((c) => String(splitPath(c.path)[0] ?? '')));
  const item = (r: Referrer) => impactItem(ctx.names.itemOf(r.def, r.live));
  const alive = (r: Referrer) => !deleted.has(`${r.def.kind}\u0000${r.live.id}`);
  if (step.kind === 'Dashboard' && step.action === 'update') return tileImpacts(step, id, ctx, item);
  if (step.kind === 'SavedSearch' && step.action === 'update') {
    const changed = [...roots].filter((r) => SEARCH_QUERY_FIELDS.has(r)).sort();
    if (changed.length === 0) return [];
    const alerts = ctx.referrers.of('SavedSearch', id).filter((r) => r.def.kind === 'Alert');
    return impact('search-alerts', `${changed.join(', ')} changed`, alerts.map(item));
  }
  if (READ_KINDS.has(step.kind)) {
    const readers = ctx.referrers.of(step.kind, id).filter((r) => r.live.id !== id && alive(r));
    const what = step.action === 'delete' ? 'deleted: they will refer to an object that is gone' : 'changed';
    return impact('readers', what, readers.map(item));
  }
  if (step.kind === 'Webhook') {
    if (step.action === 'update' && ![...roots].some((r) => WEBHOOK_DESTINATION.has(r))) return [];
    const users = ctx.referrers.of('Webhook', id).filter((r) => r.def.kind === 'Alert' && alive(r));
    const what =
      step.action === 'delete'
        ? 'deleted: these alerts keep a channel to it (not their first), which will notify nothing'
        : 'destination changed: these alerts notify through it';
    return impact('webhook-users', what, users.map(item));
  }
  return [];
}

/** Tiles whose query changes and keep their alerts (those that lose them are in the cascade). */
function tileImpacts(step: PlanStep, id: string, ctx: ImpactContext, item: (r: Referrer) => ImpactItem): Impact[] {
  const keys = new Set<string>();
  for (const c of step.changes) {
    const [root, key, field] = splitPath(c.path);
    if (root === 'tiles' && key !== undefined && field === 'config') keys.add(String(key));
  }
  const cascaded = new Set((step.cascade ?? []).map((c) => c.id));
  const out: Impact[] = [];
  for (const key of [...keys].sort()) {
    const tileId = step.parts?.find((p) => p.key === key)?.id;
    if (tileId === undefined) continue;
    const alerts = ctx.referrers.of('Dashboard', id, tileId).filter((r) => r.def.kind === 'Alert' && !cascaded.has(r.live.id));
    out.push(...impact('tile-alerts', `tile ${key}: query changed`, alerts.map(item)));
  }
  return out;
}

function impact(kind: Impact['kind'], what: string, objects: ImpactItem[]): Impact[] {
  return objects.length === 0 ? [] : [{ kind, what, objects }];
}

export function impactItem(c: CascadeItem): ImpactItem {
  const { object: _object, ...item } = c;
  return item;
}

/**
 * The objects that make the service refuse to delete `kind/id` after this plan: live objects the
 * plan does not delete whose body after the plan still holds it (an update body replaces the
 * live one), and objects the plan creates holding it.
 */
export function heldBy(kind: AnyKind, id: string, deleted: ReadonlySet<string>, ctx: ImpactContext): ImpactItem[] {
  const out: ImpactItem[] = [];
  const holdsIt = (def: KindDefinition, body: JsonObject) => (def.holds?.(body) ?? []).some((r) => r.kind === kind && r.id === id);
  for (const def of REGISTRY as readonly KindDefinition[]) {
    if (!def.holds) continue;
    for (const live of ctx.view.live.objects(def.kind) ?? []) {
      if (deleted.has(`${def.kind}\u0000${live.id}`)) continue;
      const body = ctx.view.writer(def.kind, { id: live.id })?.payload ?? (live as unknown as JsonObject);
      if (holdsIt(def, body)) out.push(impactItem(ctx.names.itemOf(def, live)));
    }
    for (const step of ctx.view.steps) {
      if (step.kind !== def.kind || step.action !== 'create' || !step.payload || !holdsIt(def, step.payload)) continue;
      const name = step.payload.name;
      out.push({ kind: def.kind, name: typeof name === 'string' ? name : null, address: step.address, owned: true, declared: true });
    }
  }
  return out;
}
