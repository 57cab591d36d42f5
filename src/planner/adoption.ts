/**
 * Whether a match by natural key may be taken, wherever a match is made (the object planned, an
 * object outside the selection, a same-kind reference):
 *  - an object another target on the same service owns is never taken (one service, one owner);
 *  - under `adopt: explicit` an existing object is never taken by natural key;
 *  - a pending entry (obsync's own create whose answer was lost) resolves only to the object that
 *    create made (trust invariant 2): one that did not exist before it, with the natural key it
 *    was sent with (./match.ts), and that still is what was sent — the manifest unchanged since,
 *    and no difference between the two. An object that is not proven is a hand-made lookalike as
 *    far as obsync knows: `by-name` may adopt it only as any other object (by the manifest's own
 *    key, loudly), `explicit` never.
 */
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import { OWNED_ELSEWHERE } from '../core/owners-elsewhere.js';
import type { DesiredResource } from '../core/resource.js';
import { naturalKeyOf, type ManagedKind } from '../kinds/kind.js';
import type { PlanContext } from './context.js';
import { diffCanonical } from './diff.js';
import { keyMatches, type MatchResult } from './match.js';

export interface RefusedAdoption {
  code: string;
  message: string;
}

/** Null when the match may be taken; otherwise the error of the object planned. */
export function refusedAdoption(
  ctx: PlanContext,
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  match: MatchResult,
): RefusedAdoption | null {
  if (match.kind !== 'adopted') return null;
  const live = match.live;
  const elsewhere = ctx.input.ownersElsewhere;
  const owner = elsewhere?.owner(def.kind, live.id);
  if (elsewhere && owner)
    return { code: OWNED_ELSEWHERE, message: `${elsewhere.refusal(`${def.noun} ${live.id}`, owner)}; ${elsewhere.hint(owner)}` };
  const explicit = ctx.input.adopt === 'explicit';
  if (match.pending && entry) {
    const unproven = pendingUnproven(ctx, def, res, entry, live);
    if (unproven === null) return null;
    const desiredKey = def.desiredKey(res, ctx.refs);
    if (!explicit && desiredKey !== null && keyMatches(def.liveKey(live), desiredKey)) return null;
    return {
      code: 'pending-unproven',
      message:
        `an earlier run sent a create of this ${def.noun} and lost its answer; ${def.noun} ${live.id} has the natural key it ` +
        `was sent with (${entry.naturalKey}), but obsync cannot prove that create made it: ${unproven}. If it is obsync's, run ` +
        `\`obsync import ${res.address} ${live.id}\`; otherwise rename or delete it`,
    };
  }
  if (!explicit) return null;
  return {
    code: 'adoption-not-allowed',
    message:
      `an existing ${def.noun} (id ${live.id}) matches it by natural key (${naturalKeyOf(def, live)}), and this target ` +
      `adopts only explicitly (adopt: explicit); to manage that ${def.noun}, run \`obsync import ${res.address} ${live.id}\`, or ` +
      `give the manifest's object another name`,
  };
}

/** Why the object found for a pending create is not proven to be what was sent, or null. */
function pendingUnproven(ctx: PlanContext, def: ManagedKind, res: DesiredResource, entry: InventoryEntry, live: LiveObject): string | null {
  const specHash = ctx.input.specHashes.get(res.address);
  if (entry.specHash === undefined || entry.specHash !== specHash) return 'the manifest changed since that create was sent';
  const fingerprints = ctx.input.fingerprints.get(res.address) ?? {};
  const desired = def.canonicalDesired(res, ctx.refs, fingerprints);
  if (!desired.ok) return `the manifest's references cannot be resolved (${desired.errors.join('; ')})`;
  // Write-only values are compared as the create sent them: the fingerprints of the unchanged manifest.
  const current = def.canonicalLive(live, {
    tokens: ctx.refs,
    parts: def.parts?.pair(res.spec, live, undefined),
    expected: desired.value,
    secrets: fingerprints,
    fingerprint: ctx.input.fingerprint,
  });
  const changes = diffCanonical(current, desired.value);
  if (changes.length === 0) return null;
  const paths = changes.map((c) => c.path || '(the whole object)');
  return `it differs from what was sent in ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;
}
