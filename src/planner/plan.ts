/**
 * plan(desired, live, inventory, options) → Plan. Pure: no I/O, clock, environment or logging.
 */
import { pushTo } from '../core/collections.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { LiveState } from '../core/live.js';
import { PLAN_FORMAT_VERSION, summarize, type Address, type Kind, type Plan, type PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { KindDefinition, Lookups } from '../kinds/kind.js';
import { LiveIndexes } from './live-index.js';
import { buildLookups } from './lookups.js';
import { matchLive } from './match.js';
import { planResource } from './plan-resource.js';
import { decidePrune } from './prune.js';

export interface PlanInput {
  target: string;
  variant: string;
  /** Every declared resource (references resolve against all of them; prune never touches them). */
  desired: readonly DesiredResource[];
  /** The resources to plan steps for (--selector / --only); all when absent. */
  selected?: ReadonlySet<Address>;
  /** Which inventory entries this run may prune (the narrowing applied to entries). */
  eligibleForPrune: (entry: InventoryEntry) => boolean;
  live: LiveState;
  inventory: readonly InventoryEntry[];
  /** Hash of each desired spec (engine-computed). */
  specHashes: Pick<ReadonlyMap<Address, string>, 'get'>;
  /** Fingerprints of each desired object's sensitive values, by path. */
  fingerprints: ReadonlyMap<Address, Record<string, string>>;
  definitions: readonly KindDefinition[];
  prune: boolean;
  maxDeletes: number;
  /** Reasons this run must not prune (invalid manifests, a failure earlier in the run). */
  pruneBlockers?: readonly string[];
}

export function plan(input: PlanInput): Plan {
  return planWithLookups(input).plan;
}

/** The plan, and the lookups it built (ids of matched objects), which the applier continues from. */
export function planWithLookups(input: PlanInput): { plan: Plan; lookups: Lookups } {
  const lookups = buildLookups(input.live, input.desired);
  const defs = [...input.definitions].sort((a, b) => a.rank - b.rank);
  const entries = new Map(input.inventory.map((e) => [entryAddress(e), e]));
  const diagnostics: Diagnostic[] = [];
  const failed = new Set<Address>();
  const steps: PlanStep[] = [];
  const indexes = new LiveIndexes((def) => def.liveObjects(input.live), lookups);
  const byKind = groupBy(input.desired, (r) => r.kind);

  for (const def of defs) {
    const resources = [...(byKind.get(def.kind) ?? [])].sort((a, b) => cmp(a.name, b.name));
    const owned = ownedIds(input.inventory, def.kind);
    for (const res of resources) {
      const entry = entries.get(res.address);
      if (input.selected && !input.selected.has(res.address)) {
        // Not planned in this run, but its id must be known to the objects that refer to it.
        const index = indexes.of(def);
        const match = index ? matchLive(def, res, entry, index, owned, lookups) : null;
        if (match && (match.kind === 'owned' || match.kind === 'adopted')) def.onMatched?.(res, match.live, { entry, lookups });
        else failed.add(res.address);
        continue;
      }
      const blocked = def.dependencies(res).find((d) => failed.has(d));
      if (blocked) {
        failed.add(res.address);
        const why = input.selected && !input.selected.has(blocked) ? 'which is not selected and does not exist on the target yet' : 'which could not be planned';
        diagnostics.push(resourceError(res, `not planned: it depends on ${blocked}, ${why}`, 'dependency-failed'));
        continue;
      }
      const outcome = planResource({ def, res, entry, lookups, input, indexes, ownedIds: owned });
      if ('errors' in outcome) {
        failed.add(res.address);
        for (const message of outcome.errors) diagnostics.push(resourceError(res, message, outcome.code));
        continue;
      }
      steps.push(outcome.step);
    }
  }

  const prune = decidePrune({
    requested: input.prune,
    maxDeletes: input.maxDeletes,
    declared: new Set(input.desired.map((r) => r.address)),
    declaredKinds: new Set(input.desired.map((r) => r.kind)),
    eligible: input.eligibleForPrune,
    inventory: input.inventory,
    deletableKinds: new Set(defs.filter((d) => d.deletable).map((d) => d.kind)),
    liveIds: (kind) => {
      const objs = defs.find((d) => d.kind === kind)?.liveObjects(input.live);
      return objs ? new Set(objs.map((o) => o.id)) : undefined;
    },
    blockers: [...(input.pruneBlockers ?? []), ...(diagnostics.length > 0 ? ['some objects could not be planned (see the errors)'] : [])],
  });
  const rank = new Map(defs.map((d) => [d.kind, d.rank]));
  const deletes: PlanStep[] = prune.deletes
    .map((e): PlanStep => {
      const liveVersion = e.id === null ? undefined : input.live.versionOf(e.id);
      return {
        address: entryAddress(e),
        kind: e.kind,
        name: e.name,
        action: 'delete',
        reason: 'not-declared',
        ...(e.id === null ? {} : { id: e.id }),
        changes: [],
        dependsOn: [],
        ...(liveVersion === undefined ? {} : { liveVersion }),
      };
    })
    .sort((a, b) => (rank.get(b.kind) ?? 0) - (rank.get(a.kind) ?? 0) || cmp(a.name, b.name));

  const ordered = [...steps, ...deletes];
  const result: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    target: input.target,
    variant: input.variant,
    steps: ordered,
    summary: summarize(ordered),
    prune: prune.report,
    diagnostics,
    errored: diagnostics.some((d) => d.severity === 'error'),
  };
  return { plan: result, lookups };
}

function ownedIds(inventory: readonly InventoryEntry[], kind: Kind): Set<string> {
  return new Set(inventory.filter((e) => e.kind === kind && e.id !== null).map((e) => e.id as string));
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) pushTo(groups, keyOf(item), item);
  return groups;
}

function resourceError(res: DesiredResource, message: string, code: string): Diagnostic {
  return { severity: 'error', code, message: `${res.address}: ${message}`, address: res.address, file: res.source.file, line: res.source.line, col: res.source.col };
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type { Lookups };
