/**
 * What a planned step says about renames: the address it moves from, the part keys it takes over
 * (`previousKeys`), previous names and keys with nothing left to move (they can be removed), and
 * a create that looks like a rename nobody declared (said, never guessed).
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { ownValue } from '../core/json.js';
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { Address, Kind, PartMove, PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { ManagedKind } from '../kinds/kind.js';
import type { PlanContext } from './context.js';

export function describeMoves(
  ctx: PlanContext,
  def: ManagedKind,
  res: DesiredResource,
  entry: InventoryEntry | undefined,
  step: PlanStep,
  pairing: ReadonlyMap<string, string> | undefined,
  diagnostics: Diagnostic[],
): void {
  const moves = ctx.moves;
  const from = moves?.from.get(res.address);
  if (from !== undefined) step.movedFrom = from;
  const done = moves?.done.get(res.address);
  if (done !== undefined) diagnostics.push(warning(res, 'previous-name-done', `${res.address}: ${done}`));
  if (def.parts && pairing && entry?.tiles) {
    partMoves(def, res, entry.tiles, pairing, step, diagnostics);
    strayParts(def, res, entry.tiles, pairing, diagnostics);
  }
  if (step.action === 'create') {
    const hint = renameHint(ctx, def, res);
    if (hint) diagnostics.push(warning(res, 'looks-like-rename', hint));
  }
}

/** Parts whose key is new in the recorded map but whose id was recorded under one of their previous keys. */
function partMoves(
  def: ManagedKind,
  res: DesiredResource,
  known: Readonly<Record<string, string>>,
  pairing: ReadonlyMap<string, string>,
  step: PlanStep,
  diagnostics: Diagnostic[],
): void {
  const previousKeys = def.parts?.previousKeys(res.spec);
  if (!previousKeys || previousKeys.size === 0) return;
  const noun = def.parts?.noun ?? 'part';
  const moved: PartMove[] = [];
  const done: string[] = [];
  for (const [key, previous] of previousKeys) {
    if (ownValue(known, key) !== undefined) {
      if (previous.every((p) => ownValue(known, p) === undefined)) done.push(key);
      continue;
    }
    const id = pairing.get(key);
    const source = id === undefined ? undefined : previous.find((p) => ownValue(known, p) === id);
    if (source !== undefined) moved.push({ from: source, to: key });
  }
  if (moved.length > 0) step.movedParts = moved;
  if (done.length > 0)
    diagnostics.push(
      warning(
        res,
        'previous-key-done',
        `${res.address}: previousKeys of ${noun}(s) ${done.map((k) => `'${k}'`).join(', ')} have nothing left to move on this ` +
          `target: the ${noun} ids are recorded under the new keys; remove previousKeys once every target has applied the rename`,
      ),
    );
}

/**
 * Part keys the state records that the manifest does not declare, while it declares keys the state
 * does not record: most likely a key renamed on one side only (`obsync state mv` of a tile with the
 * manifest unchanged, or a manifest edited without previousKeys). Said as a warning naming both keys,
 * the file and the fix; the plan itself is unchanged.
 */
function strayParts(
  def: ManagedKind,
  res: DesiredResource,
  known: Readonly<Record<string, string>>,
  pairing: ReadonlyMap<string, string>,
  diagnostics: Diagnostic[],
): void {
  const parts = def.parts;
  if (!parts) return;
  const declared = parts.keys(res.spec);
  const claimed = new Set([...declared, ...[...parts.previousKeys(res.spec).values()].flat()]);
  const stray = Object.keys(known).filter((key) => !claimed.has(key));
  const unrecorded = declared.filter((key) => ownValue(known, key) === undefined);
  if (stray.length === 0 || unrecorded.length === 0) return;
  const { noun } = parts;
  const file = res.source.file;
  for (const key of stray) {
    const id = ownValue(known, key);
    const takenBy = unrecorded.find((k) => pairing.get(k) === id);
    const to = takenBy ?? unrecorded[0] ?? '';
    const undo = `or undo the state's rename: \`obsync state mv ${res.address}/${noun}s/${key} ${res.address}/${noun}s/${to}\``;
    diagnostics.push(
      warning(
        res,
        'state-part-not-declared',
        takenBy !== undefined
          ? `${res.address}: the state records ${noun} id ${id} under key '${key}' (renamed with \`obsync state mv\`?), but ${file} ` +
              `declares no ${noun} '${key}'; the ${noun} '${takenBy}' it declares matches that ${noun}, and applying records it back ` +
              `under '${takenBy}'. To keep the key '${key}', rename key: ${takenBy} to key: ${key} in ${file} (or add previousKeys: ` +
              `[${takenBy}] there), ${undo}`
          : `${res.address}: the state records ${noun} id ${id} under key '${key}' (renamed with \`obsync state mv\`?), but ${file} ` +
              `declares no ${noun} '${key}' and declares '${unrecorded.join("', '")}', which the state does not record: applying ` +
              `deletes ${noun} '${key}' (with what hangs on it, such as alerts) and creates the new one. If '${to}' is that ` +
              `${noun}, rename its key to ${key} in ${file}, ${undo}`,
      ),
    );
  }
}

/**
 * A create whose natural key (the display name, for most kinds) is that of an object obsync owns
 * and no manifest declares any more: most likely a rename without `previousNames`. Said as a
 * warning with the fix; the plan itself is unchanged (a guess could take over the wrong object).
 */
function renameHint(ctx: PlanContext, def: ManagedKind, res: DesiredResource): string | null {
  const index = ctx.index(def);
  if (!index) return null;
  const orphans = orphansOf(ctx, def.kind);
  if (orphans.size === 0) return null;
  // desiredKey resolves references: a fresh collection, so the step's dependsOn is left alone.
  ctx.refs.startObject();
  const key = def.desiredKey(res, ctx.refs);
  if (key === null) return null;
  const candidates = index.withKey(key).flatMap((live) => {
    const address = orphans.get(live.id);
    return address === undefined ? [] : [address];
  });
  const [only] = candidates;
  if (only === undefined) return null;
  const name = (a: Address) => a.slice(a.indexOf('/') + 1);
  if (candidates.length === 1)
    return (
      `${res.address} looks like a rename of ${only}: add metadata.previousNames: [${name(only)}] to keep the existing object ` +
      `(otherwise a new ${def.noun} is created beside it)`
    );
  return (
    `${res.address} looks like a rename of one of ${candidates.join(', ')}: add that one's name to metadata.previousNames to ` +
    `keep the existing object (otherwise a new ${def.noun} is created beside them)`
  );
}

/** Owned objects of a kind no manifest declares and no rename takes over: id → address (built once per kind and plan). */
function orphansOf(ctx: PlanContext, kind: Kind): ReadonlyMap<string, Address> {
  return ctx.once(`orphans:${kind}`, () => {
    const declared = new Set<Address>(ctx.input.desired.map((r) => r.address));
    const movedAway = new Set<Address>(ctx.moves?.from.values() ?? []);
    const out = new Map<string, Address>();
    for (const e of ctx.input.inventory) {
      const address = entryAddress(e);
      if (e.kind === kind && e.status === 'owned' && e.id !== null && !declared.has(address) && !movedAway.has(address))
        out.set(e.id, address);
    }
    return out;
  });
}

function warning(res: DesiredResource, code: string, message: string): Diagnostic {
  return {
    severity: 'warning',
    code,
    message,
    address: res.address,
    file: res.source.file,
    line: res.source.line,
    col: res.source.col,
  };
}
