/**
 * Prune (DESIGN §4): only owned inventory entries missing from the manifests. Refused as a whole
 * when any guard trips — no manifests at all, an empty kind that the inventory still owns, a
 * manifest file that declared some of them and now declares nothing (./emptied-files.ts), more
 * deletes (with what the service deletes along) than the limit, or a run that had an error or an
 * invalid manifest. A delete whose cascade would take an object obsync would not delete on its
 * own (unowned, declared, or outside this run's selection) is kept back, unless `--prune-cascade`.
 */
import type { InventoryEntry } from '../core/inventory.js';
import { entryAddress } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { ImpactItem } from '../core/backtest.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { Address, BlockedDelete, CascadeItem, Kind, PruneReport } from '../core/plan.js';
import { describeItem } from './cascade.js';
import { emptiedFileRefusal, emptiedFiles, emptiedFileWarning } from './emptied-files.js';

export interface PruneInput {
  requested: boolean;
  /** `--prune-cascade`: a delete may take along objects obsync does not own. */
  cascade: boolean;
  /** `--allow-empty-kind`: kinds whose every owned object may be deleted (the empty-kind guard lifted for them). */
  allowEmptyKinds?: ReadonlySet<Kind>;
  maxDeletes: number;
  /** How many objects the manifests declare (before --selector/--only narrowing). */
  declaredCount: number;
  /** Whether an inventory entry is one of a declared object. */
  isDeclared: (entry: InventoryEntry) => boolean;
  /** Whether at least one object of a kind is declared. */
  kindDeclared: (kind: Kind) => boolean;
  /** Entries eligible for this run (matching the selection). */
  eligible: (entry: InventoryEntry) => boolean;
  inventory: readonly InventoryEntry[];
  deletableKinds: ReadonlySet<Kind>;
  /** The live object of an owned entry (an entry whose object is already gone needs no delete). */
  live: (kind: Kind, id: string) => LiveObject | undefined;
  /** What the service deletes with an object. */
  cascadeOf: (kind: Kind, id: string) => CascadeItem[];
  /** What makes the service refuse to delete an object (alerts on a webhook: 409), given what this run deletes. */
  heldBy?: (kind: Kind, id: string, deleted: ReadonlySet<string>) => ImpactItem[];
  /** Problems that forbid pruning in this run. */
  blockers: readonly string[];
  /** The manifest files read that declare nothing, as entries record theirs (`InventoryEntry.source`). */
  emptyFiles?: ReadonlySet<string>;
  /**
   * Why an owned object may not be deleted by this target: another target on the service owns it too (recorded before that was refused).
   */
  ownedElsewhere?: (kind: Kind, id: string) => string | undefined;
}

export interface PlannedDelete {
  entry: InventoryEntry & { id: string };
  live: LiveObject;
  cascade: CascadeItem[];
}

export interface PruneDecision {
  report: PruneReport;
  /** Deletes to make (empty when refused or not requested). */
  deletes: PlannedDelete[];
  /** For the plan, pruning or not: each file that declares nothing now, with the owned objects it declared. */
  warnings: Diagnostic[];
}

export function decidePrune(input: PruneInput): PruneDecision {
  const candidates: PlannedDelete[] = [];
  const kept: BlockedDelete[] = [];
  for (const e of input.inventory) {
    if (e.status !== 'owned' || e.id === null || !input.deletableKinds.has(e.kind) || input.isDeclared(e) || !input.eligible(e)) continue;
    const live = input.live(e.kind, e.id);
    if (!live) continue;
    const elsewhere = input.ownedElsewhere?.(e.kind, e.id);
    if (elsewhere === undefined) candidates.push({ entry: { ...e, id: e.id }, live, cascade: [] });
    else kept.push({ address: entryAddress(e), reason: `not deleted: ${elsewhere}` });
  }
  const allowed = [...(input.allowEmptyKinds ?? [])].sort();
  const report: PruneReport = {
    requested: input.requested,
    cascade: input.cascade,
    ...(allowed.length > 0 ? { allowEmptyKinds: allowed } : {}),
    candidates: candidates.map((c) => entryAddress(c.entry)).sort(),
    refused: [],
    blocked: input.requested ? kept : [],
  };
  const emptied = emptiedFiles(
    candidates.map((c) => c.entry),
    input.emptyFiles,
  );
  const warnings = emptied.map(emptiedFileWarning);
  if (!input.requested || candidates.length === 0) return { report, deletes: [], warnings };

  const refused = [...input.blockers, ...emptyGuards(input, candidates), ...emptied.map(emptiedFileRefusal)];
  if (refused.length > 0) {
    report.refused = refused;
    return { report, deletes: [], warnings };
  }

  const doomed = new Set(candidates.map((c) => itemKey(c.entry.kind, c.entry.id)));
  const cascading: PlannedDelete[] = [];
  for (const c of candidates) {
    c.cascade = input.cascadeOf(c.entry.kind, c.entry.id);
    const blocking = input.cascade ? [] : c.cascade.filter((item) => !doomed.has(itemKey(item.kind, item.id)));
    if (blocking.length > 0) report.blocked.push(blockedDelete(entryAddress(c.entry), blocking, c.cascade));
    else cascading.push(c);
  }
  const deletes = withoutRefused(cascading, input, report.blocked);
  report.blocked.sort((a, b) => (a.address < b.address ? -1 : 1));
  const alongside = new Set(deletes.flatMap((d) => d.cascade.map((i) => itemKey(i.kind, i.id))).filter((k) => !doomed.has(k)));
  const total = deletes.length + alongside.size;
  if (total > input.maxDeletes) {
    const along = alongside.size > 0 ? ` (${deletes.length} owned objects and ${alongside.size} the service deletes with them)` : '';
    report.refused = [`${total} deletes${along} exceed the limit of ${input.maxDeletes}; raise it with --max-deletes if this is intended`];
    return { report, deletes: [], warnings };
  }
  return { report, deletes, warnings };
}

/**
 * Deletes the service would refuse (a webhook that alerts still use answers 409), predicted from
 * what stays after this run's deletes and their cascades: kept back, with who holds them.
 */
function withoutRefused(deletes: PlannedDelete[], input: PruneInput, blocked: BlockedDelete[]): PlannedDelete[] {
  if (!input.heldBy) return deletes;
  const gone = new Set(deletes.flatMap((d) => [itemKey(d.entry.kind, d.entry.id), ...d.cascade.map((i) => itemKey(i.kind, i.id))]));
  const kept: PlannedDelete[] = [];
  for (const d of deletes) {
    const holders = input.heldBy(d.entry.kind, d.entry.id, gone);
    if (holders.length === 0) kept.push(d);
    else blocked.push(refusedDelete(entryAddress(d.entry), holders));
  }
  return kept;
}

function refusedDelete(address: Address, holders: ImpactItem[]): BlockedDelete {
  const listed = holders
    .map((h) => `${describeHolder(h)}${h.owned ? (h.declared ? '' : ', owned') : ', which obsync does not own'}`)
    .join('; ');
  const them = holders.length > 1 ? 'them' : 'it';
  return {
    address,
    reason:
      `not deleted: the service refuses to delete it (HTTP 409) while ${holders.length} object(s) still use it: ${listed}; ` +
      `point ${them} elsewhere or remove ${them} first`,
    usedBy: holders,
  };
}

function describeHolder(h: ImpactItem): string {
  if (h.address) return h.id !== undefined ? `${h.address} (id ${h.id})` : `${h.address} (created by this plan)`;
  return `${h.kind} ${h.name ? `'${h.name}' ` : ''}(id ${h.id ?? '?'})`;
}

/**
 * No manifests at all, or a kind with none, while obsync owns objects: a path or mount is wrong,
 * not a wish to delete everything — unless the user confirmed it for that kind (`--allow-empty-kind
 * KIND`; with no manifests at all, for every kind that would go).
 */
function emptyGuards(input: PruneInput, candidates: readonly PlannedDelete[]): string[] {
  const owned = (kind?: Kind) => input.inventory.filter((e) => e.status === 'owned' && (kind === undefined || e.kind === kind)).length;
  const allowed = (kind: Kind) => input.allowEmptyKinds?.has(kind) === true;
  const emptied = [...new Set(candidates.map((c) => c.entry.kind))].filter((kind) => !input.kindDeclared(kind)).sort();
  if (input.declaredCount === 0 && !emptied.every(allowed)) {
    const confirm = emptied.map((k) => `--allow-empty-kind ${k}`).join(' ');
    return [
      `no manifests were found (0 objects declared) but obsync owns ${owned()} object(s) on this target: refusing to prune; check ` +
        `the manifest paths (a mount, checkout or symlink that came up empty?), or, to delete them all, confirm with ${confirm}`,
    ];
  }
  return emptied
    .filter((kind) => !allowed(kind))
    .map(
      (kind) =>
        `no ${kind} is declared but obsync owns ${owned(kind)}: refusing to delete them all (is the manifest path right?); declare ` +
        `at least one ${kind}, or confirm deleting the last ones with --allow-empty-kind ${kind}`,
    );
}

function blockedDelete(address: Address, blocking: readonly CascadeItem[], all: readonly CascadeItem[]): BlockedDelete {
  const why = (item: CascadeItem) =>
    !item.owned
      ? 'which obsync does not own'
      : item.declared
        ? 'which a manifest declares'
        : 'which this run does not prune (not selected)';
  const listed = blocking.map((item) => `${describeItem(item)}, ${why(item)}`).join('; ');
  return {
    address,
    reason:
      `not deleted: the service would also delete ${listed} (${all.length} object(s) go with it); remove ` +
      `${blocking.length > 1 ? 'them' : 'it'} by hand first, or run with --prune-cascade to let ${blocking.length > 1 ? 'them' : 'it'} go`,
  };
}

function itemKey(kind: string, id: string): string {
  return `${kind}\u0000${id}`;
}
