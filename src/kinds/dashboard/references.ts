/**
 * Tile configs and filters refer to sources (and raw-SQL tiles to connections) by name or
 * `{id}` in manifests, by id on the wire. Two directions: to the API (ids) and to the
 * comparable form (tokens: the name when unambiguous, else `{id}`), for desired and live alike.
 */
import type { Json } from '../../core/wire.js';
import { definedOnly } from '../defined.js';
import type { Lookups } from '../kind.js';
import { resolveRef, tokenForId, tokenJson, type NameOrId } from '../refs.js';

type Obj = { [k: string]: Json };
type SpecObj = { [k: string]: Json | NameOrId | undefined };

function isNameOrId(v: unknown): v is NameOrId {
  return typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string');
}

/** `source` → `sourceId`, `connection` → `connectionId` (ids); errors name the spec path. */
export function configToApi(config: SpecObj, lookups: Lookups, path: string, errors: string[]): Obj {
  const { source, connection, ...rest } = config;
  const out = definedOnly(rest);
  if (isNameOrId(source)) {
    const r = resolveRef(lookups.sources, source, 'source');
    if (r.ok) out.sourceId = r.id;
    else errors.push(`${r.error} (at ${path}.source)`);
  }
  if (connection !== undefined) {
    const id = connectionId(connection);
    if (id) out.connectionId = id;
    else errors.push(`connections are referenced by {id: ...} (at ${path}.connection)`);
  }
  return out;
}

/** The same config in comparable terms. */
export function configToTokens(config: SpecObj, lookups: Lookups, path: string, errors: string[]): Obj {
  const { source, connection, ...rest } = config;
  const out = definedOnly(rest);
  if (isNameOrId(source)) {
    const r = resolveRef(lookups.sources, source, 'source');
    if (r.ok) out.source = tokenJson(r.token);
    else errors.push(`${r.error} (at ${path}.source)`);
  }
  if (connection !== undefined) {
    const id = connectionId(connection);
    if (id) out.connection = { id };
    else errors.push(`connections are referenced by {id: ...} (at ${path}.connection)`);
  }
  return out;
}

/** A live config (ids) in comparable terms. */
export function liveConfigToTokens(config: Obj, lookups: Lookups): Obj {
  const { sourceId, connectionId: conn, ...rest } = config;
  const out: Obj = { ...rest };
  if (typeof sourceId === 'string') out.source = tokenJson(tokenForId(lookups.sources, sourceId));
  if (typeof conn === 'string') out.connection = { id: conn };
  return out;
}

function connectionId(ref: Json | NameOrId | undefined): string | null {
  return typeof ref === 'object' && ref !== null && !Array.isArray(ref) && typeof ref.id === 'string' ? ref.id : null;
}
