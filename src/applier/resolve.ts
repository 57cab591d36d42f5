/**
 * Fills a planned body's placeholders at apply time: `{$ref: address}` (the id of a managed
 * object, possibly created earlier in this run), `{$ref: address, $part: key}` (one of its
 * parts' ids), from the applier's own id map; and `{$sensitive: fingerprint}` (the secret value,
 * read from the manifests, never from the plan).
 */
import { ObsyncError } from '../core/errors.js';
import type { IdMap } from '../core/id-map.js';
import type { Address } from '../core/plan.js';
import type { Json, JsonObject } from '../core/wire.js';
import { setOwn } from '../core/json.js';

export function resolvePayload(payload: JsonObject, ids: IdMap, secrets: ReadonlyMap<string, Json>, owner: Address): JsonObject {
  return resolveValue(payload, ids, secrets, owner) as JsonObject;
}

function resolveValue(value: Json, ids: IdMap, secrets: ReadonlyMap<string, Json>, owner: Address): Json {
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, ids, secrets, owner));
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value).length;
  const ref = value.$ref;
  const part = value.$part;
  if (typeof ref === 'string' && keys === 1) return idOf(ref as Address, ids, owner);
  if (typeof ref === 'string' && typeof part === 'string' && keys === 2) return partIdOf(ref as Address, part, ids, owner);
  const fp = value.$sensitive;
  if (typeof fp === 'string' && keys === 1) {
    const secret = secrets.get(fp);
    if (secret === undefined)
      throw new ObsyncError('SECRET_CHANGED', `${owner}: a sensitive value changed since the plan was made`, { hint: 'make a new plan' });
    return secret;
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, resolveValue(v, ids, secrets, owner));
  return out;
}

function idOf(address: Address, ids: IdMap, owner: Address): string {
  const id = ids.id(address);
  if (id === undefined) throw new ObsyncError('UNRESOLVED', `${owner}: ${address} has no id yet (it was not created)`);
  return id;
}

function partIdOf(address: Address, key: string, ids: IdMap, owner: Address): string {
  const id = ids.partId(address, key);
  if (id === undefined) throw new ObsyncError('UNRESOLVED', `${owner}: part '${key}' of ${address} has no id yet`);
  return id;
}
