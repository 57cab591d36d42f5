/**
 * Tile configs and filters refer to sources (and raw-SQL tiles to connections) by name or
 * `{id}` in manifests, by id on the wire. Two directions: to the API (ids) and to the
 * comparable form (tokens), for desired and live alike; the resolving is the planner's (refs).
 */
import { setOwn } from '../../core/json.js';
import type { Json } from '../../core/wire.js';
import { definedOnly } from '../defined.js';
import { isNameOrId, tokenJson, type NameOrId, type RefContext, type TokenContext } from '../refs.js';

type Obj = { [k: string]: Json };
type SpecObj = { [k: string]: Json | NameOrId | undefined };

/** `source` → `sourceId`, `connection` → `connectionId` (ids); errors name the spec path. */
export function configToApi(config: SpecObj, refs: RefContext, path: string, errors: string[]): Obj {
  const { source, connection, ...rest } = config;
  const out = definedOnly(rest);
  if (isNameOrId(source)) {
    const wire = refs.wire('Source', source);
    if (wire !== null) out.sourceId = wire;
    else errors.push(`source ${JSON.stringify(source)} does not resolve (at ${path}.source)`);
  }
  if (isNameOrId(connection)) {
    const wire = refs.wire('Connection', connection);
    if (wire !== null) out.connectionId = wire;
    else errors.push(`connection ${JSON.stringify(connection)} does not resolve (at ${path}.connection)`);
  }
  return out;
}

/** The same config in comparable terms. */
export function configToTokens(config: SpecObj, refs: RefContext, path: string, errors: string[]): Obj {
  const { source, connection, ...rest } = config;
  const out = definedOnly(rest);
  if (isNameOrId(source)) {
    const r = refs.ref('Source', source);
    if (r.ok) out.source = tokenJson(r.token);
    else errors.push(`${r.error} (at ${path}.source)`);
  }
  if (isNameOrId(connection)) {
    const r = refs.ref('Connection', connection);
    if (r.ok) out.connection = tokenJson(r.token);
    else errors.push(`${r.error} (at ${path}.connection)`);
  }
  return out;
}

/**
 * A live config (ids) in comparable terms. Copied key by key, not as `{ ...rest }` of a
 * destructured rest: on Node 20 adding a key to such a copy gives each object a hidden class of
 * its own, allocated straight into the old generation (10 MB of a first plan at 10,000 dashboards).
 */
export function liveConfigToTokens(config: Obj, tokens: TokenContext): Obj {
  const out: Obj = {};
  for (const key in config) if (key !== 'sourceId' && key !== 'connectionId') setOwn(out, key, config[key]);
  const sourceId = config.sourceId;
  const conn = config.connectionId;
  if (typeof sourceId === 'string') out.source = tokenJson(tokens.token('Source', sourceId));
  if (typeof conn === 'string') out.connection = tokenJson(tokens.token('Connection', conn));
  return out;
}
