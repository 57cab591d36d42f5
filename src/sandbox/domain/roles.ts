/**
 * RBAC roles of self-hosted ClickStack with RBAC (the enterprise edition; open-source HyperDX has
 * no `/roles`). Paths, bodies and quirks as ClickHouse/terraform-provider-clickhouse c320db99
 * drives them (internal/service/clickstack/client/role.go and role_resource.go): predefined roles
 * Admin, Member and ReadOnly (`isPredefined`, never modified or deleted); a permission's
 * `integration` defaults to `mongodb`; the server always adds `read` on `Connection` to a custom
 * role; PUT keeps an omitted name or description and always takes the permissions. Status codes
 * the provider does not show (a duplicate name, a role still assigned) are the sandbox's choice,
 * listed in docs/access.md.
 */
import * as z from 'zod';
import type { DomainResult, JsonRecord, JsonValue } from './contract.js';
import { badRequest, invalidIdParam, notFoundText, ok, zodFailure } from './result.js';
import { seedId } from './ids.js';
import { findById, type Store } from './store.js';
import { text } from './json.js';

export const ROLE_ACTIONS = ['create', 'read', 'update', 'delete', 'manage'] as const;

/** The predefined roles, with fixed ids (the seed's prefix, numbered from 0x100). */
export const PREDEFINED_ROLE_IDS = { Admin: seedId(0x100), Member: seedId(0x101), ReadOnly: seedId(0x102) } as const;

const manage = (subject: string): JsonRecord => ({ action: 'manage', subject, integration: 'mongodb', inverted: false });
const read = (subject: string): JsonRecord => ({ action: 'read', subject, integration: 'mongodb', inverted: false });

export function predefinedRoles(): JsonRecord[] {
  return [
    { id: PREDEFINED_ROLE_IDS.Admin, name: 'Admin', description: 'Full access', isPredefined: true, permissions: [manage('all')] },
    {
      id: PREDEFINED_ROLE_IDS.Member,
      name: 'Member',
      description: 'Create and edit dashboards, searches and alerts',
      isPredefined: true,
      permissions: ['Dashboard', 'SavedSearch', 'Alert'].map(manage).concat([read('Source'), read('Connection'), read('Webhook')]),
    },
    {
      id: PREDEFINED_ROLE_IDS.ReadOnly,
      name: 'ReadOnly',
      description: 'Read everything, change nothing',
      isPredefined: true,
      permissions: [read('all')],
    },
  ];
}

const permission = z.object({
  action: z.enum(ROLE_ACTIONS),
  subject: z.string().min(1),
  integration: z.enum(['mongodb', 'clickhouse']).optional(),
  inverted: z.boolean().optional(),
  fields: z.array(z.string()).optional(),
  conditions: z.record(z.string(), z.unknown()).optional(),
});
const createBody = z.object({
  name: z.string().trim().min(1).max(1024),
  description: z.string().max(2048).optional(),
  permissions: z.array(permission),
});
const updateBody = createBody.partial({ name: true });

type Permission = z.output<typeof permission>;

/** What the server stores: the integration filled in, `read Connection` added when missing. */
export function normalisePermissions(perms: readonly Permission[]): JsonRecord[] {
  const out: JsonRecord[] = perms.map((p) => {
    const row: JsonRecord = { action: p.action, subject: p.subject, integration: p.integration ?? 'mongodb' };
    if (p.inverted !== undefined) row.inverted = p.inverted;
    if (p.fields !== undefined && p.fields.length > 0) row.fields = p.fields;
    if (p.conditions !== undefined) row.conditions = p.conditions as JsonValue;
    return row;
  });
  const hasConnectionRead = out.some(
    (p) => p.action === 'read' && p.subject === 'Connection' && p.integration === 'mongodb' && p.inverted !== true,
  );
  if (!hasConnectionRead) out.push({ action: 'read', subject: 'Connection', integration: 'mongodb' });
  return out;
}

export function roleOut(role: JsonRecord): JsonRecord {
  return { ...role, isPredefined: role.isPredefined === true };
}

export function listRoles(store: Store): DomainResult<JsonRecord[]> {
  return ok(store.state.roles.map(roleOut));
}

export function getRole(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const role = findById(store.state.roles, id);
  return role ? ok(roleOut(role)) : notFoundText('Role not found');
}

function nameTaken(store: Store, name: string, except?: string): boolean {
  return store.state.roles.some((r) => r.id !== except && text(r.name).toLowerCase() === name.toLowerCase());
}

export function createRole(store: Store, body: unknown): DomainResult<JsonRecord> {
  const parsed = createBody.safeParse(body);
  if (!parsed.success) return zodFailure('Body', parsed.error);
  const { name, description, permissions } = parsed.data;
  if (nameTaken(store, name)) return badRequest(`A role named ${name} already exists`);
  const now = store.nowIso();
  const role: JsonRecord = {
    id: store.newId(),
    name,
    isPredefined: false,
    permissions: normalisePermissions(permissions),
    createdAt: now,
    updatedAt: now,
  };
  if (description !== undefined) role.description = description;
  store.commit({ roles: [...store.state.roles, role] });
  return ok(roleOut(role));
}

export function updateRole(store: Store, id: string, body: unknown): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const parsed = updateBody.safeParse(body);
  if (!parsed.success) return zodFailure('Body', parsed.error);
  const role = findById(store.state.roles, id);
  if (!role) return notFoundText('Role not found');
  if (role.isPredefined === true) return badRequest('Predefined roles cannot be modified');
  const { name, description, permissions } = parsed.data;
  if (name !== undefined && nameTaken(store, name, id)) return badRequest(`A role named ${name} already exists`);
  const next: JsonRecord = { ...role, permissions: normalisePermissions(permissions), updatedAt: store.nowIso() };
  if (name !== undefined) next.name = name;
  if (description !== undefined) next.description = description;
  store.commit({ roles: store.state.roles.map((r) => (r.id === id ? next : r)) });
  return ok(roleOut(next));
}

export function deleteRole(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const role = findById(store.state.roles, id);
  if (!role) return notFoundText('Role not found');
  if (role.isPredefined === true) return badRequest('Predefined roles cannot be deleted');
  const users = store.state.users.filter((u) => u.roleId === id).length + store.state.invitations.filter((i) => i.roleId === id).length;
  if (users > 0) return badRequest(`Role is assigned to ${users} member(s) or invitation(s); assign them another role first`);
  if (store.state.defaultUserRole === id) return badRequest("Role is the team's default role for new users; set another default first");
  store.commit({ roles: store.state.roles.filter((r) => r.id !== id) });
  return ok({ success: true });
}
