/**
 * Trust invariant 2 (DESIGN §4): ownership is proven, never taken from the service's word. The
 * id a create answers (or a re-list finds after a lost answer) becomes owned only when
 *  - it did not exist in the live state the run read (of any kind, objects its lists left out
 *    but a GET by id found included), is owned by no inventory entry and was not taken by another
 *    step of this run: the create made it, as far as the run could see; and
 *  - the object as the service answered has the natural key of the body that was sent; and
 *  - the object read back by its id (a GET of its own, after the create) is what was sent: its
 *    natural key, and every field the plan compares, in the plan's own terms.
 * A server that hides an object from its list and answers a create with that object's id gets
 * it owned only if that object is, field for field, what the manifest declares. A create that
 * fails the proof records nothing (docs/ownership.md says exactly what is proven).
 */
import { ObsyncError } from '../core/errors.js';
import { entryAddress } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { Address, PlanStep } from '../core/plan.js';
import type { CollectionPort } from '../core/ports.js';
import { naturalKeyOf, type ManagedKind } from '../kinds/kind.js';
import { KINDS } from '../kinds/registry.js';
import { stableJson } from '../planner/diff.js';
import { keyMatches } from '../planner/match.js';
import type { ApplyContext } from './context.js';
import { verifyWrite } from './verify.js';

/** The code of a create that was sent and answered, but not proven (the service may have made something). */
export const OWNERSHIP_UNPROVEN = 'OWNERSHIP_UNPROVEN';

/** A create whose answer obsync could not prove it made: nothing was recorded. */
export class OwnershipError extends ObsyncError {
  override readonly name = 'OwnershipError';
  constructor(message: string, hint: string) {
    super(OWNERSHIP_UNPROVEN, message, { hint });
  }
}

/** Why the answered object cannot be the one this create made, or null when it is proven. Notes the id as answered either way. */
export function unprovenCreate(def: ManagedKind, step: PlanStep, sentKey: string, live: LiveObject, ctx: ApplyContext): string | null {
  if (ctx.seen.had(live.id)) return `the service answered with id ${live.id}, an object that existed before this run wrote anything`;
  const owner = ownedBefore(ctx).get(live.id);
  if (owner !== undefined) return `the service answered with id ${live.id}, which obsync already owns as ${owner}`;
  const answered = ctx.answered.get(live.id);
  ctx.answered.set(live.id, step.address);
  const taken = answered ?? KINDS.map((kind) => ctx.ids.addressOf(kind, live.id)).find((a) => a !== undefined);
  if (taken !== undefined && taken !== step.address)
    return `the service answered with id ${live.id}, which another create of this run (${taken}) was answered with`;
  if (!keyMatches(def.liveKey(live), sentKey))
    return `the service answered with id ${live.id}, whose natural key is ${naturalKeyOf(def, live)}, not the ${sentKey} that was sent`;
  return null;
}

/**
 * The proof's last part: the object read back by the id the service answered (null: not found) is
 * what was sent. `parts`: its part ids, paired with the step's keys. Null when proven.
 */
export function unprovenReadBack(
  def: ManagedKind,
  step: PlanStep,
  sentKey: string,
  answeredId: string,
  readBack: LiveObject | null,
  ctx: ApplyContext,
  parts: ReadonlyMap<string, string> | undefined,
): string | null {
  if (readBack === null || readBack.id !== answeredId)
    return `the service answered with id ${answeredId}, and reading it back by that id finds no such ${def.noun}`;
  if (!keyMatches(def.liveKey(readBack), sentKey))
    return `${def.noun} ${answeredId}, read back, has the natural key ${naturalKeyOf(def, readBack)}, not the ${sentKey} that was sent`;
  const { changes } = verifyWrite(def, step, readBack, ctx.ids, (value) => ctx.inventory.fingerprint(stableJson(value)), parts);
  if (changes.length === 0) return null;
  const paths = changes.map((c) => c.path || '(the whole object)');
  const listed = `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;
  return `${def.noun} ${answeredId}, read back, is not what was sent: it differs in ${listed}`;
}

/** Objects a create may have made: the natural key that was sent, and new to this run (for the error, never owned). */
export function newWithKey(objects: readonly LiveObject[], def: ManagedKind, step: PlanStep, key: string, ctx: ApplyContext): LiveObject[] {
  const owned = ownedBefore(ctx);
  const otherStep = (id: string) =>
    (ctx.answered.get(id) ?? step.address) !== step.address || ctx.ids.addressOf(def.kind, id) !== undefined;
  return objects.filter((o) => !ctx.seen.had(o.id) && !owned.has(o.id) && !otherStep(o.id) && keyMatches(def.liveKey(o), key));
}

const owners = new WeakMap<ApplyContext, ReadonlyMap<string, Address>>();

/**
 * Ids the inventory owned when the apply began (an object whose entry outlived it still counts), with
 * their addresses; built once per apply.
 */
function ownedBefore(ctx: ApplyContext): ReadonlyMap<string, Address> {
  let map = owners.get(ctx);
  if (!map) {
    map = new Map(
      ctx.inventory.entries().flatMap((e) => (e.status === 'owned' && e.id !== null ? [[e.id, entryAddress(e)] as const] : [])),
    );
    owners.set(ctx, map);
  }
  return map;
}

/** The error of an unproven create, naming what the service may have created (found again by natural key). */
export async function unprovenError(
  api: CollectionPort,
  def: ManagedKind,
  step: PlanStep,
  sentKey: string,
  why: string,
  ctx: ApplyContext,
): Promise<OwnershipError> {
  const found = await api.list(ctx.signal ? { signal: ctx.signal } : {}).then(
    (objects) => newWithKey(objects, def, step, sentKey, ctx).map((o) => o.id),
    () => null,
  );
  const created =
    found === null
      ? 'obsync could not list the objects to look for what it may have created'
      : found.length === 0
        ? `no new ${def.noun} with that natural key (${sentKey}) exists now`
        : `the create may have made ${def.noun} ${found.join(', ')} (new, with that natural key), which obsync does not own`;
  return new OwnershipError(
    `${step.address}: obsync cannot prove it created the object, so it records nothing: ${why}; ${created}`,
    found && found.length === 1
      ? `check ${def.noun} ${found[0] ?? ''} on the service: if it is the one the manifest declares, run ` +
          `\`obsync import ${step.address} ${found[0] ?? ''}\`; otherwise delete it`
      : 'check the service for what this create made; `obsync import` takes over one object by id, and the ' +
          'next apply creates it again if none exists',
  );
}
