/**
 * References between objects (DESIGN §2): in manifests by name or `{id}`; on the wire by id, or
 * by a placeholder for a managed object planned in the same run; in comparable forms by a token
 * — the object's name when it has a usable one, otherwise `{id}` — so that `Traces` and
 * `{id: <Traces' id>}` compare equal and an unknown id still compares exactly.
 *
 * Kinds ask through `RefContext` and `TokenContext`; the planner (and, for the re-read after a
 * write, the applier) answer generically, from the registry: a name is first the metadata.name
 * of a declared object of a managed kind, else the display name of an unmanaged live one.
 */
import type { Json } from '../core/wire.js';
import type { AnyKind } from '../core/kind-name.js';

export type NameOrId = string | { id: string };

/** A reference as a manifest writes it: a name, or `{id: ...}`. */
export function isNameOrId(v: unknown): v is NameOrId {
  return (
    typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string')
  );
}
export type RefToken = string | { id: string; name?: string };

export type RefUse = { ok: true; token: RefToken; id: string | null } | { ok: false; error: string };

/** How a kind resolves the references of a desired object while planning. */
export interface RefContext {
  /** A reference to an object of `kind`: its token, and its live id when known now (natural keys need it). */
  ref(kind: AnyKind, ref: NameOrId): RefUse;
  /** A reference to a keyed part (a tile) of a referenced object. */
  part(kind: AnyKind, parent: NameOrId, part: NameOrId): RefUse;
  /**
   * How a reference (or, with `part`, a part of it) goes into a body: the id, or a placeholder
   * (`{$ref: address}`) for a managed object planned in this run; null when it does not resolve.
   */
  wire(kind: AnyKind, ref: NameOrId, part?: NameOrId): Json | null;
}

/** How a kind turns the ids of a live object's references into comparable tokens. */
export interface TokenContext {
  token(kind: AnyKind, id: string): RefToken;
  partToken(kind: AnyKind, parentId: string, partId: string): RefToken;
}

export function tokenJson(token: RefToken): Json {
  return typeof token === 'string' ? token : token.name === undefined ? { id: token.id } : { id: token.id, name: token.name };
}

/** A placeholder for a managed object's id (or one of its parts' ids), filled at apply time. */
export function placeholder(address: string, part?: string): Json {
  return part === undefined ? { $ref: address } : { $ref: address, $part: part };
}
