/**
 * Plans one desired object: match, compare canonical forms, choose action and reason, and put
 * into the step everything the applier needs (payload, what to record, the expected form).
 */
import { NO_ENTRIES } from '../core/freeze.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { ListGap, LiveObject } from '../core/live.js';
import type { Address, Change, IgnoredChange, PartRef, PlanStep, StepRecord } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import { naturalKeyOf, type ManagedKind } from '../kinds/kind.js';
import { diffCanonical, sameJson, valueAt } from './diff.js';
import type { PlanContext } from './context.js';
import { refusedAdoption } from './adoption.js';
import { applyIgnoreRules } from './ignore.js';
import { matchLive, type MatchResult } from './match.js';
import { sameStrings, type Recalled } from './memo.js';
import { RecordingRefs } from './ref-calls.js';

export type ResourceOutcome = { step: PlanStep; pairing?: ReadonlyMap<string, string> | undefined } | { errors: string[]; code: string };

/** `matched`: the object's match when its kind was matched ahead of planning (objects of the kind refer to each other). */
export function planResource(
  ctx: PlanContext,
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  matched?: MatchResult,
): ResourceOutcome {
  const { input, refs } = ctx;
  const index = ctx.index(def);
  if (!index) return { errors: [`the target '${input.target}' (${input.variant}) cannot manage ${def.kind} objects`], code: 'capability' };
  const fingerprints = input.fingerprints.get(res.address) ?? {};
  const match = matched ?? matchLive(def, res, entry, index, ctx.taken(def.kind), refs);
  // Filled in by the caller once every reference is resolved (refs.usedAddresses()).
  const dependsOn: Address[] = [];
  // Steps are object literals, not `{ ...base, more }`: on Node 20 properties after a leading
  // spread take a slow path (~7 µs a step, seconds over 20,000 objects).
  const { address, kind, name } = res;

  if (match.kind === 'ambiguous') {
    return {
      errors: [
        `${match.ids.length} live objects match its natural key (${match.key}): ${match.ids.join(', ')}; obsync will not guess — rename ` +
          `one, or remove the duplicates`,
      ],
      code: 'ambiguous-adoption',
    };
  }
  if (match.kind === 'missing') {
    const repeated = input.refusedCreates;
    if (repeated?.has(address) && repeated.get(address) === input.specHashes.get(address))
      return {
        errors: [
          'not created again: this daemon created it in each of its last runs, and each next run found it missing (the service does not ' +
            'keep it, or hides it from its list and its GET); obsync stops creating copies until the object is found, its manifest ' +
            'changes or the daemon restarts',
        ],
        code: 'non-convergent',
      };
    // A list shown to leave out objects that exist is no proof this one is missing: nothing is created.
    if (def.creatable && input.listGaps && input.listGaps.length > 0)
      return { errors: [`not created: ${inconsistentLists(input.listGaps)}`], code: 'inconsistent-list' };
    if (!def.creatable || !def.createPayload)
      return {
        errors: [`no matching ${def.kind.toLowerCase()} exists on the target, and obsync does not create ${def.kind} objects`],
        code: 'not-found',
      };
    const desired = def.canonicalDesired(res, refs, fingerprints);
    if (!desired.ok) return { errors: desired.errors, code: 'unresolved-reference' };
    const step: PlanStep = {
      address,
      kind,
      name,
      dependsOn,
      action: 'create',
      reason: 'missing',
      changes: diffCanonical({}, desired.value),
      payload: def.createPayload(res, refs, fingerprints),
    };
    step.record = record(ctx, res, undefined);
    if (def.parts) step.parts = def.parts.keys(res.spec).map((key) => ({ key }));
    step.expected = { value: desired.value, names: refs.namesOf(def.references(res.spec)) };
    return { step };
  }

  const live = match.live;
  const refused = refusedAdoption(ctx, def, res, entry, match);
  if (refused) return { errors: [refused.message], code: refused.code };
  if (match.kind === 'adopted') ctx.claim(def.kind, live.id);
  const recalled = ctx.memo?.recall(address, live, res, entry?.tiles);
  const pairing = recalled ? recalled.parts : def.parts?.pair(res.spec, live, entry?.tiles);
  ctx.register(def, address, live.id, pairing);
  const compared = compare(ctx, def, res, entry, live, pairing, fingerprints, recalled);
  if ('errors' in compared) return compared;
  // A fresh array even when the memo found the object unchanged: nothing shared between plans reaches a plan (one taken whole is frozen,
  // engine/last-plan.ts).
  const changes = compared.same ? [] : compared.changes;
  const { ignored } = compared;
  const id = live.id;
  const step: PlanStep = { address, kind, name, dependsOn, id, action: 'noop', reason: 'unchanged', changes };
  if (match.kind === 'adopted') step.adopt = true;
  if (ignored.length > 0) step.nonConvergent = ignored;
  if (changes.length === 0 && input.unchangedForms && !compared.same) step.form = compared.current;
  if (!compared.same && compared.byRule && compared.byRule.length > 0) step.ignored = compared.byRule;
  // Planned as the manifest with the live values at its ignored fields: an update sends those back.
  const planned = (!compared.same && compared.res) || res;
  if (changes.length === 0 && entry?.status === 'owned' && entry.id === live.id) {
    settledRecord(ctx, step, res, entry, def.parts ? pairing : undefined, def.parts?.keys(res.spec));
    return { step, pairing };
  }
  step.record = record(ctx, res, naturalKeyOf(def, live));
  if (def.parts && pairing) step.parts = partRefs(def.parts.keys(res.spec), pairing);
  if (changes.length === 0 || compared.same) return { step, pairing };

  const specUnchanged = entry?.specHash !== undefined && entry.specHash === step.record.specHash;
  step.action = 'update';
  step.reason = specUnchanged ? 'drifted' : 'spec-changed';
  const liveVersion = input.live.versionOf(kind, id);
  if (liveVersion !== undefined) step.liveVersion = liveVersion;
  const update = def.update(planned, live, { refs, fingerprints, changedPaths: changes.map((c) => c.path), parts: pairing });
  if ('payload' in update) step.payload = update.payload;
  else {
    step.calls = update.calls;
    if (update.settle) step.settle = true;
  }
  step.expected = { value: compared.desired, names: refs.namesOf(def.references(planned.spec)) };
  step.current = compared.current;
  const notes = [...(def.notes?.(planned, live) ?? []), ...(compared.ruleNote ? [compared.ruleNote] : [])];
  if (notes.length > 0) step.notes = notes;
  return { step, pairing };
}

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
function compare(
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

/** Everything the applier records for an object it writes or adopts. */
function record(ctx: PlanContext, res: DesiredResource, naturalKey: string | undefined): StepRecord {
  const out: StepRecord = {};
  if (naturalKey !== undefined) out.naturalKey = naturalKey;
  if (hasKeys(res.labels)) out.labels = res.labels;
  const specHash = ctx.input.specHashes.get(res.address);
  if (specHash !== undefined) out.specHash = specHash;
  const secrets = ctx.input.fingerprints.get(res.address);
  if (secrets && hasKeys(secrets)) out.secrets = secrets;
  const source = ctx.input.declaringFiles?.of(res);
  if (source !== undefined) out.source = source;
  return out;
}

/**
 * An owned object left unchanged: the step carries only what differs from its inventory entry,
 * the applier keeps the rest. A steady-state plan of 20,000 objects hashes no spec and allocates
 * nothing more per object; an adoption or a write records everything.
 */
function settledRecord(
  ctx: PlanContext,
  step: PlanStep,
  res: DesiredResource,
  entry: InventoryEntry,
  pairing: ReadonlyMap<string, string> | undefined,
  keys: readonly string[] | undefined,
): void {
  const specHash = entry.specHash === undefined ? ctx.input.specHashes.get(res.address) : undefined;
  const secrets = ctx.input.fingerprints.get(res.address) ?? NO_ENTRIES;
  const labelsMoved = !sameStrings(res.labels, entry.labels ?? NO_ENTRIES);
  const secretsMoved = !sameStrings(secrets, entry.secrets ?? NO_ENTRIES);
  const source = ctx.input.declaringFiles?.of(res);
  const sourceMoved = source !== undefined && source !== entry.source;
  if (labelsMoved || secretsMoved || specHash !== undefined || sourceMoved) {
    const out: StepRecord = {};
    if (labelsMoved) out.labels = res.labels;
    if (specHash !== undefined) out.specHash = specHash;
    if (secretsMoved) out.secrets = secrets;
    if (sourceMoved) out.source = source;
    step.record = out;
  }
  if (pairing && keys && !samePairing(pairing, entry.tiles ?? NO_ENTRIES)) step.parts = partRefs(keys, pairing);
}

/** A pairing (key → part id) against an entry's part map. */
function samePairing(a: ReadonlyMap<string, string>, b: Readonly<Record<string, string>>): boolean {
  let same = true;
  a.forEach((id, key) => {
    if (b[key] !== id) same = false;
  });
  let count = 0;
  for (const _ in b) count += 1;
  return same && count === a.size;
}

function hasKeys(o: Readonly<Record<string, unknown>>): boolean {
  for (const _ in o) return true;
  return false;
}

function partRefs(keys: readonly string[], pairing: ReadonlyMap<string, string>): PartRef[] {
  return keys.map((key) => {
    const id = pairing.get(key);
    return id === undefined ? { key } : { key, id };
  });
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

/** Why a run whose lists left out objects that exist creates nothing (the plan's diagnostic, and each create's). */
export function inconsistentLists(gaps: readonly ListGap[]): string {
  const shown = gaps
    .slice(0, 3)
    .map((g) => `${g.address} (id ${g.id})`)
    .join(', ');
  const more = gaps.length > 3 ? ` and ${gaps.length - 3} more` : '';
  return (
    `the service's list left out ${shown}${more}, which it still finds by id: its lists are inconsistent, so this run creates ` +
    `nothing (a create could duplicate an object a list hides); check the service, or a proxy or cache in front of it, and run again`
  );
}
