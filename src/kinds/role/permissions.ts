/**
 * A role's permissions in comparable form: the service's defaults filled in (integration
 * `mongodb`, not inverted, all fields, no conditions), sorted (order carries no meaning), and the
 * `read Connection` the service adds to every role left out unless the manifest declares it (the
 * provider's filterAutoConnectionRead), so a converged role plans as no change.
 */
import type { Json, JsonObject } from '../../core/wire.js';
import type { PermissionView } from './model.js';

type LivePermission = { [K in keyof PermissionView]?: PermissionView[K] | null };

export function canonicalPermission(p: LivePermission): JsonObject {
  return {
    action: p.action ?? '',
    subject: p.subject ?? '',
    integration: p.integration ?? 'mongodb',
    inverted: p.inverted ?? false,
    fields: p.fields ?? [],
    // Manifest and response values are parsed JSON: a conditions object is Json.
    conditions: p.conditions && Object.keys(p.conditions).length > 0 ? (p.conditions as JsonObject) : null,
  };
}

/** The permission the service adds to every role. */
export function isAddedConnectionRead(p: JsonObject): boolean {
  return (
    p.action === 'read' &&
    p.subject === 'Connection' &&
    p.integration === 'mongodb' &&
    p.inverted === false &&
    Array.isArray(p.fields) &&
    p.fields.length === 0 &&
    p.conditions === null
  );
}

export function sortedPermissions(perms: readonly LivePermission[]): JsonObject[] {
  const keyed = perms.map((p) => {
    const c = canonicalPermission(p);
    return { c, key: sortedKeysJson(c) };
  });
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // The same permission twice is one permission.
  return keyed.filter((k, i) => i === 0 || keyed[i - 1]?.key !== k.key).map((k) => k.c);
}

/** Live permissions as the manifest would state them: the added `read Connection` dropped unless declared. */
export function livePermissions(perms: readonly LivePermission[], declared: readonly Json[] | undefined): JsonObject[] {
  const live = sortedPermissions(perms);
  const declaresIt = (declared ?? []).some((p) => typeof p === 'object' && p !== null && !Array.isArray(p) && isAddedConnectionRead(p));
  return declaresIt ? live : live.filter((p) => !isAddedConnectionRead(p));
}

function sortedKeysJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(sortedKeysJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedKeysJson(value[k] ?? null)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
