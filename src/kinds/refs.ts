/**
 * References by name or `{id}` (DESIGN §2). In canonical forms a reference is a "token": the
 * object's name when the id is known on the target, otherwise `{id}`; so `Traces` and
 * `{id: <Traces' id>}` compare equal, and an unknown id still compares exactly.
 */
import type { NameIndex } from '../core/live.js';
import type { Json } from '../core/wire.js';

export type NameOrId = string | { id: string };
export type RefToken = string | { id: string };

export type Resolved = { ok: true; id: string; token: RefToken } | { ok: false; error: string };

export function resolveRef(index: NameIndex, ref: NameOrId, what: string): Resolved {
  if (typeof ref !== 'string') return { ok: true, id: ref.id, token: tokenForId(index, ref.id) };
  const found = index.byName.get(ref) ?? [];
  if (found.length === 1 && found[0]) return { ok: true, id: found[0].id, token: ref };
  if (found.length === 0) return { ok: false, error: `${what} '${ref}' does not exist on the target` };
  return { ok: false, error: `${found.length} ${what}s are named '${ref}' on the target; refer to one by {id: ...} (${found.map((f) => f.id).join(', ')})` };
}

export function tokenForId(index: NameIndex, id: string): RefToken {
  const named = index.byId.get(id);
  if (!named) return { id };
  // A name shared by several objects is not a usable token: keep the id.
  return (index.byName.get(named.name)?.length ?? 0) === 1 ? named.name : { id };
}

export function tokenJson(token: RefToken): Json {
  return typeof token === 'string' ? token : { id: token.id };
}
