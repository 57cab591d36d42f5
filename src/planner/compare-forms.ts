/**
 * Compares a matched object's canonical forms with its manifest's (or takes the plan memo's word that they are
 * equal): the changes, the ignore rules applied, and non-convergent fields left out.
 */
import { NO_ENTRIES } from '../core/freeze.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { Change, IgnoredChange } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import type { ManagedKind } from '../kinds/kind.js';
import { diffCanonical, sameJson, valueAt } from './diff.js';
import type { PlanContext } from './context.js';
import { applyIgnoreRules } from './ignore.js';
import type { Recalled } from './memo.js';
import { RecordingRefs } from './ref-calls.js';

/**
 * The changes a plan would show between `res` and its live object, in the context of a finished
 * plan (`planWithContext`): `obsync pull` asks it of specs it edits in memory, so that a field is
 * only rewritten where the canonical forms differ. Nothing is remembered (no memo, no registration).
 */
export function changesOf(
  ctx: PlanContext,
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  live: LiveObject,
): Change[] | { errors: string[]; code: string } {
  const pairing = def.parts?.pair(res.spec, live, entry?.tiles);
  const fingerprints = ctx.input.fingerprints.get(res.address) ?? {};
  const compared = compare(ctx, def, res, entry, live, pairing, fingerprints, undefined, false);
  return 'errors' in compared ? compared : compared.changes;
}

/** How a matched object compares with its manifest: its changes, and the two forms when there are any. */
type Compared = { changes: Change[]; ignored: string[] } & (
  | { same: true }
  | {
      same: false;
      desired: Json;
      current: Json;
      /** Differences ignore rules left out, and the resource planned in its place (the live values at the ignored fields). */
      byRule?: IgnoredChange[];
      res?: DesiredResource;
      /** Why the object's ignore rules were not applied. */
      ruleNote?: string;
    }
);

/** Found unchanged by the memo. */
const SAME: Compared = Object.freeze({
  same: true,
  changes: Object.freeze([]) as unknown as Change[],
  ignored: Object.freeze([]) as unknown as string[],
});

/**
 * The canonical forms of the desired and the live object, and their diff. With a memo (a daemon's
 * repeated plans), an object whose inputs are those of an equal comparison in the last plan is
 * not compared again (memo.ts), and an equal comparison is kept for the next plan.
 */
export function compare(
  ctx: PlanContext,
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  live: LiveObject,
  pairing: ReadonlyMap<string, string> | undefined,
  fingerprints: Readonly<Record<string, string>>,
  recalled: Recalled | undefined,
  remember = true,
): Compared | { errors: string[]; code: string } {
  const { refs } = ctx;
  const memo = remember ? ctx.memo : undefined;
  const secrets = entry?.status === 'owned' ? (entry.secrets ?? NO_ENTRIES) : NO_ENTRIES;
  // The memo knows an object is unchanged without its forms; a plan asked for them makes them.
  if (!ctx.input.unchangedForms && memo?.unchanged(recalled, res, fingerprints, secrets, pairing, refs)) return SAME;
  const recording = memo ? new RecordingRefs(refs) : undefined;
  const desired = def.canonicalDesired(res, recording ?? refs, fingerprints);
  if (!desired.ok) return { errors: desired.errors, code: 'unresolved-reference' };
  const current = def.canonicalLive(live, {
    tokens: recording ?? refs,
    parts: pairing,
    expected: desired.value,
    secrets,
    fingerprint: ctx.input.fingerprint,
  });
  const diff = diffCanonical(current, desired.value);
  if (diff.length === 0 && memo && recording)
    memo.keep(res.address, live, res, fingerprints, secrets, pairing, entry?.tiles, recording.calls);
  const rules = res.ignore;
  const ruled =
    rules && rules.length > 0 && diff.length > 0
      ? applyIgnoreRules({ ctx, def, res, live, pairing, refs, fingerprints, current, changes: diff }, rules)
      : undefined;
  if (ruled?.applied) {
    const { changes, ignored } = dropNonConvergent(ruled.changes, ruled.desired, entry);
    return { same: false, changes, ignored, desired: ruled.desired, current, byRule: ruled.ignored, res: ruled.res };
  }
  const { changes, ignored } = dropNonConvergent(diff, desired.value, entry);
  return { same: false, changes, ignored, desired: desired.value, current, ...(ruled ? { ruleNote: ruled.note } : {}) };
}

/**
 * A field the service did not keep after the last apply is reported once as non-convergent and
 * then left out while its desired value stays the same, so the loop cannot flap on it.
 */
function dropNonConvergent(changes: Change[], desired: Json, entry: InventoryEntry | undefined): { changes: Change[]; ignored: string[] } {
  const known = (entry?.nonConvergent ?? []).filter((nc) => sameJson(valueAt(desired, nc.path), nc.desired));
  if (known.length === 0) return { changes, ignored: [] };
  const ignored = new Set<string>();
  const kept = changes.filter((c) => {
    const hit = known.find((nc) => c.path === nc.path || c.path.startsWith(`${nc.path}.`) || c.path.startsWith(`${nc.path}[`));
    if (hit) ignored.add(hit.path);
    return !hit;
  });
  return { changes: kept, ignored: [...ignored] };
}
