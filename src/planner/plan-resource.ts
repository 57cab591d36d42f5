/**
 * Plans one desired object: match, compare canonical forms, choose action and reason, and put
 * into the step everything the applier needs (payload, what to record, the expected form).
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { ListGap } from '../core/live.js';
import type { Address, PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import { naturalKeyOf, type ManagedKind } from '../kinds/kind.js';
import { diffCanonical } from './diff.js';
import type { PlanContext } from './context.js';
import { refusedAdoption } from './adoption.js';
import { matchLive, type MatchResult } from './match.js';
import { compare } from './compare-forms.js';
import { record, settledRecord, partRefs } from './step-record.js';

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
        `${match.ids.length} live objects match its natural key (${match.key}): ${match.ids.join(', ')}; obsync will not guess — ` +
          `rename ` +
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
