/**
 * plan(desired, live, inventory, options) → Plan. Pure: no I/O, clock, environment or logging.
 * Generic over kinds: everything kind-specific comes from the registry's definitions.
 */
import { cmp, groupBy } from '../core/collections.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import { PLAN_FORMAT_VERSION, summarize, type Address, type Kind, type Plan, type PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { ManagedKind } from '../kinds/kind.js';
import { MANAGED, managedDefinition } from '../kinds/registry.js';
import { backtestSubjects, type BacktestSubject } from './backtest-subjects.js';
import { Cascades } from './cascade.js';
import { addImpacts, heldBy, Referrers, type ImpactContext } from './impact.js';
import { PlannedView } from './planned-view.js';
import { PlanContext, type PlanInput } from './context.js';
import { refusedAdoption } from './adoption.js';
import { matchLive, type MatchResult } from './match.js';
import { KEY_PROBE } from './memo.js';
import { describeMoves } from './move-steps.js';
import { planMoves } from './moves.js';
import { inconsistentLists, planResource } from './plan-resource.js';
import { refuseSkipped, undeclaredSkipped } from './skipped-rows.js';
import { decidePrune } from './prune.js';
import { guardLockout } from './lockout-steps.js';
import { type PlannedUpdate, updateCascades, withoutBlocked, sameKindCycles } from './blocked-steps.js';
import { ownedElsewhere, deletedByPlan, deleteSteps } from './delete-steps.js';
import { resourceError } from './resource-error.js';

export type { PlanInput };

/** What planning the declared objects leaves for the steps after it (cascades, prune). */
interface Planned {
  steps: PlanStep[];
  diagnostics: Diagnostic[];
  /** The inventory entries of declared objects, by identity (prune looks every entry up). */
  declaredEntries: Set<InventoryEntry>;
  failed: Set<Address>;
  /** Why an object outside the selection has no id to refer to (its dependants say it). */
  unselectedWhy: Map<Address, string>;
  withParts: PlannedUpdate[];
  unselected: { address: Address; kind: Kind; id: string }[];
}

export function plan(input: PlanInput): Plan {
  return planWithSubjects(input).plan;
}

/** The plan, with the alerts it should backtest (the engine runs their series requests). */
export function planWithSubjects(input: PlanInput): { plan: Plan; subjects: BacktestSubject[] } {
  const { plan: made, subjects } = planWithContext(input);
  return { plan: made, subjects };
}

/**
 * The plan with the context it was made in: every declared object matched, its id (and parts)
 * known to the references. `obsync pull` compares edited specs in it (plan-resource.ts `changesOf`).
 */
export function planWithContext(input: PlanInput): { plan: Plan; subjects: BacktestSubject[]; context: PlanContext } {
  // What a memoised comparison depends on beyond each object's inputs: another target, variant or fingerprint key changes every form.
  input.memo?.begin(`${input.target}\u0000${input.variant}\u0000${input.fingerprint(KEY_PROBE)}`);
  const ctx = new PlanContext(input);
  const moves = planMoves(input.desired, input.inventory);
  refuseSkipped(input.desired, input.skipped ?? [], moves);
  const entries = moves.entries;
  const planned: Planned = {
    steps: [],
    diagnostics: undeclaredSkipped(input.desired, input.skipped ?? []),
    declaredEntries: new Set(),
    failed: new Set(),
    unselectedWhy: new Map(),
    withParts: [],
    unselected: [],
  };
  ctx.moves = moves;
  const byKind = groupBy(input.desired, (r) => r.kind);
  for (const def of MANAGED) {
    const declared = byKind.get(def.kind) ?? [];
    const byName = () => [...declared].sort((a, b) => cmp(a.name, b.name));
    // A daemon's unchanged manifests are the same objects run after run: sorted once (12 ms a plan at 20,000).
    const resources = input.memo ? input.memo.ordered(def.kind, declared, byName) : byName();
    const matched = def.refersTo.includes(def.kind) ? matchAll(ctx, def, resources, entries) : undefined;
    for (const res of resources) planOne(ctx, def, res, entries.get(res.address), planned, matched?.get(res.address));
  }
  const result = finish(ctx, planned, byKind);
  input.memo?.commit();
  return { ...result, context: ctx };
}

/**
 * Objects of a kind that refer to each other (a log source and its trace source) are all matched
 * before any is planned: a reference to one planned later must already compare by its name.
 */
function matchAll(
  ctx: PlanContext,
  def: ManagedKind,
  resources: readonly DesiredResource[],
  entries: ReadonlyMap<Address, InventoryEntry>,
): Map<Address, MatchResult> {
  const out = new Map<Address, MatchResult>();
  const index = ctx.index(def);
  if (!index) return out;
  for (const res of resources) {
    const entry = entries.get(res.address);
    const match = matchLive(def, res, entry, index, ctx.taken(def.kind), ctx.refs);
    if ((match.kind === 'owned' || match.kind === 'adopted') && !refusedAdoption(ctx, def, res, entry, match)) {
      if (match.kind === 'adopted') ctx.claim(def.kind, match.live.id);
      ctx.register(def, res.address, match.live.id, def.parts?.pair(res.spec, match.live, entry?.tiles));
    }
    out.set(res.address, match);
  }
  return out;
}

/** One declared object: its step, or the diagnostics of why it has none. Hot: once per object. */
function planOne(
  ctx: PlanContext,
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  planned: Planned,
  matched?: MatchResult,
): void {
  const { input } = ctx;
  if (entry) planned.declaredEntries.add(entry);
  const refused = ctx.moves?.refused.get(res.address);
  if (refused) {
    planned.failed.add(res.address);
    for (const r of refused) planned.diagnostics.push(resourceError(res, r.message, r.code));
    return;
  }
  // The target lacks the kind altogether (open-source HyperDX has no roles): an error of this object.
  const unsupported = input.live.unsupported?.(def.kind);
  if (unsupported !== undefined) {
    planned.failed.add(res.address);
    planned.diagnostics.push(resourceError(res, `not planned: ${unsupported}`, 'unsupported'));
    return;
  }
  // Its kind could not be read without changing the service (a read-only command on an idle service): the rest is planned.
  const unread = input.live.unread?.(def.kind);
  if (unread !== undefined) {
    planned.failed.add(res.address);
    planned.diagnostics.push({ ...resourceError(res, `not planned: ${unread}`, 'not-read'), severity: 'warning' });
    return;
  }
  if (input.selected && !input.selected.has(res.address)) {
    const found = matchForIds(ctx, def, res, entry, matched);
    if ('id' in found) planned.unselected.push({ address: res.address, kind: res.kind, id: found.id });
    else {
      planned.failed.add(res.address);
      planned.unselectedWhy.set(res.address, found.why);
    }
    return;
  }
  ctx.refs.startObject();
  const outcome = planResource(ctx, def, res, entry, matched);
  const dependsOn = ctx.refs.usedAddresses();
  const blocked = dependsOn.length > 0 ? dependsOn.find((d) => planned.failed.has(d)) : undefined;
  if (blocked) {
    planned.failed.add(res.address);
    const unselected = planned.unselectedWhy.get(blocked);
    const why = unselected === undefined ? 'which could not be planned' : `which is not selected, and ${unselected}`;
    planned.diagnostics.push(resourceError(res, `not planned: it depends on ${blocked}, ${why}`, 'dependency-failed'));
    return;
  }
  if ('errors' in outcome) {
    planned.failed.add(res.address);
    for (const message of outcome.errors) planned.diagnostics.push(resourceError(res, message, outcome.code));
    return;
  }
  outcome.step.dependsOn = dependsOn;
  describeMoves(ctx, def, res, entry, outcome.step, outcome.pairing, planned.diagnostics);
  planned.steps.push(outcome.step);
  if (outcome.step.action === 'update' && outcome.pairing && def.parts)
    planned.withParts.push({ step: outcome.step, def, res, pairing: outcome.pairing });
}

/** After every declared object: what updates and prune would take along, prune itself, the impacts, the plan. */
function finish(
  ctx: PlanContext,
  planned: Planned,
  byKind: ReadonlyMap<Kind, readonly DesiredResource[]>,
): { plan: Plan; subjects: BacktestSubject[] } {
  const { input } = ctx;
  const { steps, diagnostics, declaredEntries, withParts, unselected } = planned;
  if (input.listGaps && input.listGaps.length > 0)
    diagnostics.push({ severity: 'error', code: 'inconsistent-list', message: inconsistentLists(input.listGaps) });
  const cascades = new Cascades(input.live, input.inventory, () => matchedObjects(steps, unselected));
  const blockedUpdates = updateCascades(withParts, cascades, input.pruneCascade, diagnostics);
  const blocked = new Set([...blockedUpdates, ...planned.failed, ...sameKindCycles(steps, input.desired, diagnostics)]);
  const kept = withoutBlocked(steps, blocked, input.desired, diagnostics);
  const view = new PlannedView(kept, input.live, ctx.ids);
  const impacts: ImpactContext = { view, referrers: new Referrers(input.live), names: cascades };

  const prune = decidePrune({
    requested: input.prune,
    cascade: input.pruneCascade,
    allowEmptyKinds: new Set(input.allowEmptyKinds ?? []),
    maxDeletes: input.maxDeletes,
    declaredCount: input.desired.length,
    isDeclared: (e) => declaredEntries.has(e),
    kindDeclared: (kind) => byKind.has(kind),
    eligible: input.eligibleForPrune,
    inventory: input.inventory,
    deletableKinds: new Set(MANAGED.filter((d) => d.deletable).map((d) => d.kind)),
    live: (kind, id) => {
      const def = managedDefinition(kind);
      return def ? ctx.index(def)?.get(id) : undefined;
    },
    cascadeOf: (kind, id) => cascades.of(kind, id),
    heldBy: (kind, id, deleted) => heldBy(kind, id, deleted, impacts),
    ...(input.ownersElsewhere && input.ownersElsewhere.size > 0 ? { ownedElsewhere: ownedElsewhere(input.ownersElsewhere) } : {}),
    blockers: [
      ...(input.pruneBlockers ?? []),
      ...(diagnostics.some((d) => d.severity === 'error') ? ['some objects could not be planned (see the errors)'] : []),
    ],
    ...(input.declaringFiles ? { emptyFiles: input.declaringFiles.empty } : {}),
  });
  diagnostics.push(...prune.warnings);
  const guarded = guardLockout([...kept, ...deleteSteps(prune.deletes, ctx)], input.live);
  diagnostics.push(...guarded.diagnostics);
  const ordered = guarded.steps;
  addImpacts(ordered, impacts, deletedByPlan(ordered));
  const result: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    target: input.target,
    variant: input.variant,
    steps: ordered,
    summary: summarize(ordered),
    prune: prune.report,
    forget: input.inventory.filter((e) => e.status === 'pending' && !declaredEntries.has(e)).map(entryAddress),
    diagnostics,
    errored: diagnostics.some((d) => d.severity === 'error'),
  };
  return { plan: result, subjects: backtestSubjects(view) };
}

/** An object outside the selection is not planned, but the objects that refer to it need its ids. */
function matchForIds(
  ctx: PlanContext,
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  matched: MatchResult | undefined,
): { id: string } | { why: string } {
  const index = ctx.index(def);
  const match = matched ?? (index ? matchLive(def, res, entry, index, ctx.taken(def.kind), ctx.refs) : null);
  if (!match || (match.kind !== 'owned' && match.kind !== 'adopted')) return { why: 'does not exist on the target yet' };
  // A live object matches but may not be taken (adopt: explicit, another target's, an unproven create): say which, and the way out.
  const refused = refusedAdoption(ctx, def, res, entry, match);
  if (refused) return { why: `obsync does not own it yet: ${refused.message}` };
  if (match.kind === 'adopted') ctx.claim(def.kind, match.live.id);
  ctx.register(def, res.address, match.live.id, def.parts?.pair(res.spec, match.live, entry?.tiles));
  return { id: match.live.id };
}

/** Every declared object this plan matched with a live one (for what a cascade would take along). */
function* matchedObjects(
  steps: readonly PlanStep[],
  unselected: readonly { address: Address; kind: Kind; id: string }[],
): Iterable<{ address: Address; kind: Kind; id: string }> {
  for (const s of steps) if (s.id !== undefined) yield { address: s.address, kind: s.kind, id: s.id };
  yield* unselected;
}
