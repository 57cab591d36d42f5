/**
 * Custom RBAC roles (self-hosted ClickStack with RBAC; terraform-provider-clickhouse
 * client/role.go, role_resource.go). Adopted by name. The predefined roles are never listed
 * here (src/remote/team-kinds.ts leaves them out): they are named, never managed. PUT keeps an
 * omitted name or description, so an update sends both (an empty description clears it) and
 * always the permissions. Open-source HyperDX has no roles: reading them is a clear refusal.
 */
import type { Json, JsonObject } from '../../core/wire.js';
import type { Canonical, ManagedKind } from '../kind.js';
import { isJsonObject } from '../../core/json.js';
import { roleLive, type RoleLive, type RoleSpecView } from './model.js';
import { roleSpecSchema } from './schema.js';
import { livePermissions, sortedPermissions } from './permissions.js';
import { roleToManifest } from './export.js';

export const role: ManagedKind<'Role', RoleSpecView, RoleLive> = {
  kind: 'Role',
  description:
    'A custom RBAC role (self-hosted ClickStack with RBAC): obsync creates, updates and (with --prune) deletes it. Predefined roles ' +
    'are named by team members, never declared.',
  managed: true,
  noun: 'role',
  refersTo: [],
  live: roleLive,
  routes: { 'self-hosted': { api: 'observability', path: 'roles', paging: 'none', update: 'PUT', port: 'roles' } },
  read: 'when-declared',
  exportOnRequest: true,
  displayName: (live) => live.name,
  spec: roleSpecSchema,
  creatable: true,
  deletable: true,
  references: () => [],

  toManifest: roleToManifest,
  desiredKey: (res) => keyOf(res.spec.name),
  liveKey: (live) => keyOf(live.name),
  bodyKey: (body) => keyOf(typeof body.name === 'string' ? body.name : ''),

  canonicalDesired(res): Canonical {
    return {
      ok: true,
      value: { name: res.spec.name, description: res.spec.description ?? null, permissions: sortedPermissions(res.spec.permissions) },
    };
  },

  canonicalLive(live, { expected }) {
    const declared: readonly Json[] | undefined =
      isJsonObject(expected) && Array.isArray(expected.permissions) ? expected.permissions : undefined;
    return {
      name: live.name,
      description: live.description ? live.description : null,
      permissions: livePermissions(live.permissions ?? [], declared),
    };
  },

  createPayload(res) {
    const body: JsonObject = { name: res.spec.name, permissions: res.spec.permissions.map(permissionBody) };
    if (res.spec.description !== undefined) body.description = res.spec.description;
    return body;
  },

  update(res) {
    return {
      payload: { name: res.spec.name, description: res.spec.description ?? '', permissions: res.spec.permissions.map(permissionBody) },
    };
  },
};

function keyOf(name: string): string {
  return `name:${name.trim()}`;
}

function permissionBody(p: RoleSpecView['permissions'][number]): JsonObject {
  const out: JsonObject = { action: p.action, subject: p.subject, integration: p.integration ?? 'mongodb' };
  if (p.inverted !== undefined) out.inverted = p.inverted;
  if (p.fields !== undefined) out.fields = p.fields;
  if (p.conditions !== undefined) out.conditions = p.conditions as JsonObject; // parsed from YAML: JSON
  return out;
}
