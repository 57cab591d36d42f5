/**
 * plan(desired, live, inventory, options) → Plan. Pure: no I/O, clock, environment or logging.
 * Generic over kinds: everything kind-specific comes from the registry's definitions.
 */
import { pushTo } from '../core/collections.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import { PLAN_FORMAT_VERSION, summarize, type Address, type Kind, type Plan, type PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { LiveObject } from '../core/live.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { Json, JsonObject } from '../core/wire.js';
import type { ManagedKind } from '../kinds/kind.js';
import { MANAGED, managedDefinition } from '../kinds/registry.js';
import { backtestSubjects, type BacktestSubject } from './backtest-subjects.js';
import { Cascades, describeItem } from './cascade.js';
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
import { decidePrune, type PlannedDelete } from './prune.js';
import { guardLockout } from './lockout-steps.js';

export type { PlanInput };

interface PlannedUpdate {
  step: PlanStep;
  def: ManagedKind;
  res: DesiredResource;
  pairing: ReadonlyMap<string, string>;
}

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

/** The prune guard of one service, one owner: an object another target on the service owns too is not deleted here. */
function ownedElsewhere(elsewhere: OwnersElsewhere): (kind: Kind, id: string) => string | undefined {
  return (kind, id) => {
    const owner = elsewhere.owner(kind, id);
    return owner && elsewhere.refusal(`${managedDefinition(kind)?.noun ?? kind} ${id}`, owner, 'delete it');
  };
}

/** `kind\0id` of every object the plan deletes, directly or by a cascade. */
function deletedByPlan(steps: readonly PlanStep[]): Set<string> {
  const out = new Set<string>();
  for (const s of steps) {
    if (s.action === 'delete' && s.id !== undefined) out.add(`${s.kind}\u0000${s.id}`);
    for (const c of s.cascade ?? []) out.add(`${c.kind}\u0000${c.id}`);
  }
  return out;
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

/**
 * An update that drops parts (tiles) makes the service delete what hangs on them. Only objects
 * obsync owns and no manifest declares may go that way; anything else blocks the update (an
 * error naming the object and the way out) unless `--prune-cascade`.
 */
function updateCascades(updates: readonly PlannedUpdate[], cascades: Cascades, allowAll: boolean, diagnostics: Diagnostic[]): Set<Address> {
  const blocked = new Set<Address>();
  for (const { step, def, res, pairing } of updates) {
    if (step.id === undefined || !def.parts) continue;
    const items = cascades.of(def.kind, step.id, def.parts.survivingParts(res.spec, pairing));
    if (items.length === 0) continue;
    step.cascade = items;
    const blocking = allowAll ? [] : items.filter((i) => !i.owned || i.declared);
    if (blocking.length === 0) continue;
    blocked.add(step.address);
    const listed = blocking
      .map((i) => `${describeItem(i)}, ${i.owned ? 'which a manifest declares' : 'which obsync does not own'}`)
      .join('; ');
    const noun = def.parts.noun;
    diagnostics.push(
      resourceError(
        res,
        `not updated: the service would delete ${listed} with this update (its ${noun} is removed or can no longer carry it); remove or move ${blocking.length > 1 ? 'them' : 'it'} by hand first, or run with --prune-cascade to let ${blocking.length > 1 ? 'them' : 'it'} go`,
        'cascade-blocked',
      ),
    );
  }
  return blocked;
}

/**
 * The steps without the blocked ones and the steps that depend on them (each reported). Objects
 * of one kind may depend on one planned after them (sources): repeated until nothing changes.
 */
function withoutBlocked(
  steps: readonly PlanStep[],
  blocked: Set<Address>,
  desired: readonly DesiredResource[],
  diagnostics: Diagnostic[],
): PlanStep[] {
  if (blocked.size === 0) return [...steps];
  const byAddress = new Map(desired.map((r) => [r.address, r]));
  let kept: PlanStep[] = [...steps];
  for (let before = -1; before !== kept.length; ) {
    before = kept.length;
    const next: PlanStep[] = [];
    for (const step of kept) {
      const dep = step.dependsOn.find((d) => blocked.has(d));
      if (blocked.has(step.address)) continue;
      if (dep) {
        blocked.add(step.address);
        const res = byAddress.get(step.address);
        if (res) diagnostics.push(resourceError(res, `not planned: it depends on ${dep}, which could not be planned`, 'dependency-failed'));
        continue;
      }
      next.push(step);
    }
    kept = next;
  }
  return kept;
}

/**
 * Objects of one kind that refer to each other. A reference to one that exists needs no order
 * (its id is known, and a kind with such references has no parts whose ids an update renews):
 * that dependency goes, so two sources that name each other update in one run. Objects none of
 * which exists that refer to each other in a cycle cannot be created in one run: each is
 * reported and blocked.
 */
function sameKindCycles(steps: readonly PlanStep[], desired: readonly DesiredResource[], diagnostics: Diagnostic[]): Set<Address> {
  const sameKind = (s: PlanStep) => s.dependsOn.length > 0 && s.dependsOn.some((d) => d.startsWith(`${s.kind}/`));
  const linked = steps.filter(sameKind);
  if (linked.length === 0) return new Set();
  const byAddress = new Map(steps.map((s) => [s.address, s]));
  for (const step of linked) {
    if (managedDefinition(step.kind)?.parts) continue;
    step.dependsOn = step.dependsOn.filter((d) => !(d.startsWith(`${step.kind}/`) && byAddress.get(d)?.id !== undefined));
  }
  const cycles = findCycles(linked.filter(sameKind), byAddress);
  if (cycles.size === 0) return cycles;
  const resources = new Map(desired.map((r) => [r.address, r]));
  for (const address of cycles) {
    const res = resources.get(address);
    const others = (byAddress.get(address)?.dependsOn ?? []).filter((d) => cycles.has(d));
    const message = `not planned: it refers to ${others.join(', ')}, which refers back to it, and none of them exists on the target yet; create one without the reference first (one apply), then add the reference`;
    if (res) diagnostics.push(resourceError(res, message, 'reference-cycle'));
  }
  return cycles;
}

/** Addresses on a dependency cycle among these steps (a depth-first walk; plans without same-kind references never get here). */
function findCycles(steps: readonly PlanStep[], byAddress: ReadonlyMap<Address, PlanStep>): Set<Address> {
  const onCycle = new Set<Address>();
  const state = new Map<Address, 'open' | 'done'>();
  const path: Address[] = [];
  const visit = (address: Address): void => {
    const seen = state.get(address);
    if (seen === 'done') return;
    if (seen === 'open') {
      for (const a of path.slice(path.indexOf(address))) onCycle.add(a);
      return;
    }
    state.set(address, 'open');
    path.push(address);
    for (const dep of byAddress.get(address)?.dependsOn ?? []) if (byAddress.has(dep)) visit(dep);
    path.pop();
    state.set(address, 'done');
  };
  for (const step of steps) visit(step.address);
  return onCycle;
}

function deleteSteps(deletes: readonly PlannedDelete[], ctx: PlanContext): PlanStep[] {
  const { input } = ctx;
  const rank = new Map(MANAGED.map((d, i) => [d.kind, i]));
  return deletes
    .map(({ entry, live, cascade }): PlanStep => {
      const step: PlanStep = {
        address: entryAddress(entry),
        kind: entry.kind,
        name: entry.name,
        action: 'delete',
        reason: 'not-declared',
        id: entry.id,
        changes: [],
        dependsOn: [],
      };
      const liveVersion = input.live.versionOf(entry.kind, entry.id);
      if (liveVersion !== undefined) step.liveVersion = liveVersion;
      step.backup = live as unknown as JsonObject;
      const current = deletedForm(ctx, entry, live);
      if (current !== undefined) step.current = current;
      if (cascade.length > 0) step.cascade = cascade;
      return step;
    })
    .sort((a, b) => (rank.get(b.kind) ?? 0) - (rank.get(a.kind) ?? 0) || cmp(a.name, b.name));
}

/**
 * What a delete removes, in manifest terms (the plan output's `before`). There is no desired
 * object to take a shape from (`expected: null`); a kind that cannot do without one gives no form
 * rather than stopping the plan (the raw object is in the step's backup either way).
 */
function deletedForm(ctx: PlanContext, entry: InventoryEntry, live: LiveObject): Json | undefined {
  const def = managedDefinition(entry.kind);
  if (!def) return undefined;
  try {
    return def.canonicalLive(live, {
      tokens: ctx.refs,
      parts: entry.tiles ? new Map(Object.entries(entry.tiles)) : undefined,
      expected: null,
      secrets: entry.secrets ?? {},
      fingerprint: ctx.input.fingerprint,
    });
  } catch {
    return undefined;
  }
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) pushTo(groups, keyOf(item), item);
  return groups;
}

/** An error of one object, at the field a kind's message names (`… (at spec.channel.webhook)`) when its position is known. */
function resourceError(res: DesiredResource, message: string, code: string): Diagnostic {
  const at = / \(at (spec[^\s)]*)\)$/.exec(message);
  const path = at?.[1];
  const field = path === undefined ? undefined : res.source.fields?.[path];
  return {
    severity: 'error',
    code,
    message: `${res.address}: ${at && field ? message.slice(0, at.index) : message}`,
    address: res.address,
    file: res.source.file,
    line: field?.line ?? res.source.line,
    col: field?.col ?? res.source.col,
    ...(at && field ? { path } : {}),
  };
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
