/**
 * Fills a planned payload's placeholders at apply time: `{$ref: address}` (id of a managed
 * object, possibly created earlier in this run), `{$tile: [dashboard, key]}` (tile id), and
 * `{$sensitive: fingerprint}` (the secret value, read from the manifests, never from the plan).
 */
import { ObsyncError } from '../core/errors.js';
import type { Address } from '../core/plan.js';
import type { Json, JsonObject } from '../core/wire.js';
import type { Lookups } from '../kinds/kind.js';

export function resolvePayload(payload: JsonObject, lookups: Lookups, secrets: ReadonlyMap<string, Json>, owner: Address): JsonObject {
  return resolveValue(payload, lookups, secrets, owner) as JsonObject;
}

function resolveValue(value: Json, lookups: Lookups, secrets: ReadonlyMap<string, Json>, owner: Address): Json {
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, lookups, secrets, owner));
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  if (keys.length === 1) {
    const ref = value.$ref;
    if (typeof ref === 'string') return idOf(ref as Address, lookups, owner);
    const tile = value.$tile;
    if (Array.isArray(tile) && typeof tile[0] === 'string' && typeof tile[1] === 'string') return tileIdOf(tile[0] as Address, tile[1], lookups, owner);
    const fp = value.$sensitive;
    if (typeof fp === 'string') {
      const secret = secrets.get(fp);
      if (secret === undefined) {
        throw new ObsyncError('SECRET_CHANGED', `${owner}: a sensitive value changed since the plan was made`, { hint: 'make a new plan' });
      }
      return secret;
    }
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, lookups, secrets, owner)]));
}

function idOf(address: Address, lookups: Lookups, owner: Address): string {
  const id = lookups.dashboardIds.get(address);
  if (id === undefined) throw new ObsyncError('UNRESOLVED', `${owner}: ${address} has no id yet (it was not created)`);
  return id;
}

function tileIdOf(dashboard: Address, key: string, lookups: Lookups, owner: Address): string {
  const id = lookups.tileIds.get(dashboard)?.get(key);
  if (id === undefined) throw new ObsyncError('UNRESOLVED', `${owner}: tile '${key}' of ${dashboard} has no id yet`);
  return id;
}
