/**
 * The ports of the access kinds (self-hosted only), each composed from several endpoints
 * (hyperdx v2/team.ts; terraform-provider-clickhouse client/team.go and role.go):
 *
 * - TeamMember: a member (`GET /team/members`) or a pending invitation (`GET /team/invitations`),
 *   one object per email (its id is the lower-cased email, which survives an invitation being
 *   accepted). Roles travel by name; ids are looked up in `GET /roles` here. Create invites, update
 *   changes the role (`PUT /team/members/:id/role`, or a pending invitation re-issued), delete
 *   removes the member or revokes the invitation.
 * - TeamSettings: `GET /team`, the default role of new users set by `PATCH /team/defaultUserRole`.
 * - Role: `/roles`, without the predefined roles (never managed, only named).
 *
 * The invite URL and a virtual member's access key are secrets: told to the scrubber where they
 * are read, and never part of a live object (so never in a plan, export, backup or the state).
 */
import * as z from 'zod';
import { ApiError, CapabilityError } from '../core/errors.js';
import type { CallOptions, CollectionPort } from '../core/ports.js';
import { registerSecret } from '../core/scrub.js';
import { objectId, type JsonObject } from '../core/wire.js';
import type { Api } from './api.js';
import { below } from './paths.js';

// Ids from the service are held to their form at the edge, as every collection's (core/wire.ts).
const member = z.looseObject({
  id: objectId,
  email: z.string(),
  name: z.string().nullish(),
  roleId: z.string().nullish(),
  roleName: z.string().nullish(),
  isCurrentUser: z.boolean().nullish(),
  isVirtual: z.boolean().nullish(),
  accessKey: z.string().nullish(),
});
const invitation = z.looseObject({
  id: objectId,
  email: z.string(),
  name: z.string().nullish(),
  roleId: z.string().nullish(),
  url: z.string().nullish(),
});
const inviteResult = z.looseObject({ url: z.string().nullish() });
const roleRow = z.looseObject({ id: objectId, name: z.string(), isPredefined: z.boolean().nullish() });
const team = z.looseObject({ id: objectId, name: z.string().nullish(), defaultUserRole: z.string().nullish() });
const anything = z.unknown();

type Member = z.output<typeof member>;
type Invitation = z.output<typeof invitation>;

const noRbac = (target: string, what: string) =>
  new CapabilityError(
    target,
    'self-hosted',
    `${what}: it has no RBAC (open-source HyperDX)`,
    'roles, member roles and team settings need ClickStack with RBAC; remove them from the manifests of this target',
  );

/** Reads a path that only ClickStack with RBAC serves: its 404 says the server has no RBAC. */
async function rbacOnly<T>(target: string, what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw noRbac(target, what);
    throw err;
  }
}

export function teamPorts(api: Api, root: string, target: string) {
  const path = (...parts: string[]) => below(root, ...parts);
  const roles = (o?: CallOptions) => rbacOnly(target, 'roles', () => api.list(path('roles'), roleRow, o));
  const roleId = async (name: string, o?: CallOptions): Promise<string> => {
    const found = (await roles(o)).find((r) => r.name === name);
    if (!found)
      throw new CapabilityError(
        target,
        'self-hosted',
        `a role named '${name}': there is none`,
        'declare a Role with that name, or name an existing role',
      );
    return found.id;
  };

  const readMembers = async (o?: CallOptions) => {
    const [members, invitations] = await Promise.all([
      api.list(path('team', 'members'), member, o),
      api.list(path('team', 'invitations'), invitation, o),
    ]);
    for (const m of members) if (m.accessKey) registerSecret(m.accessKey);
    for (const i of invitations) if (i.url) registerSecret(i.url);
    return { members, invitations };
  };
  const roleNames = async (rows: readonly { roleId?: string | null | undefined }[], o?: CallOptions) => {
    if (!rows.some((r) => r.roleId)) return new Map<string, string>();
    return new Map((await roles(o)).map((r) => [r.id, r.name]));
  };
  const listMembers = async (o?: CallOptions): Promise<TeamMemberRow[]> => {
    const { members, invitations } = await readMembers(o);
    const names = await roleNames(invitations, o);
    const active = members.map((m) => activeRow(m));
    const seen = new Set(active.map((m) => m.id));
    const pending = invitations.filter((i) => !seen.has(i.email.toLowerCase())).map((i) => pendingRow(i, names));
    return [...active, ...pending];
  };
  const find = async (email: string, o?: CallOptions) => {
    const { members, invitations } = await readMembers(o);
    return {
      member: members.find((m) => m.email.toLowerCase() === email),
      invitation: invitations.find((i) => i.email.toLowerCase() === email),
    };
  };
  const get = async (id: string, o?: CallOptions) => (await listMembers(o)).find((m) => m.id === id) ?? null;
  const invite = async (body: JsonObject, o?: CallOptions) => {
    const sent: JsonObject = { email: stringField(body, 'email') };
    if (typeof body.name === 'string') sent.name = body.name;
    if (typeof body.role === 'string') sent.roleId = await roleId(body.role, o);
    const answer = await api.call({ method: 'POST', path: path('team', 'invitation'), body: sent, signal: o?.signal }, inviteResult);
    if (answer.url) registerSecret(answer.url);
  };
  const mustGet = async (id: string, o?: CallOptions) => {
    const live = await get(id, o);
    if (!live) throw new Error(`team member ${id} is not on the team after the write`);
    return live;
  };

  const members: CollectionPort<TeamMemberRow> = {
    list: listMembers,
    get,
    async create(body, o) {
      await invite(body, o);
      return mustGet(stringField(body, 'email').toLowerCase(), o);
    },
    async update(id, body, o) {
      const role = typeof body.role === 'string' ? body.role : undefined;
      const { member: m, invitation: i } = await find(id, o);
      if (role === undefined) return mustGet(id, o);
      if (m && !m.roleId) throw noRbac(target, "a member's role");
      if (m)
        await api.call(
          {
            method: 'PUT',
            path: path('team', 'members', m.id, 'role'),
            body: { roleId: await roleId(role, o) },
            idempotent: true,
            signal: o?.signal,
          },
          anything,
        );
      else if (i) {
        // A pending invitation carries its role: re-issued with the new one (as the provider does).
        await api.remove(path('team', 'invitation', i.id), o);
        await invite({ email: i.email, role, ...(i.name ? { name: i.name } : {}) }, o);
      }
      return mustGet(id, o);
    },
    async delete(id, o) {
      const { member: m, invitation: i } = await find(id, o);
      if (m) await api.remove(m.roleId ? path('team', 'members', m.id, 'role') : path('team', 'member', m.id), o);
      else if (i) await api.remove(path('team', 'invitation', i.id), o);
    },
    call: () => Promise.reject(new Error('team members have no extra calls')),
    waitUntil: (id, _done, o) => get(id, o),
  };

  const readSettings = async (o?: CallOptions): Promise<TeamSettingsRow[]> => {
    const t = await api.call({ method: 'GET', path: path('team'), idempotent: true, signal: o?.signal }, team);
    if (!('defaultUserRole' in t)) throw noRbac(target, 'team settings');
    const names = t.defaultUserRole ? await roleNames([{ roleId: t.defaultUserRole }], o) : new Map<string, string>();
    return [{ id: t.id, defaultUserRole: t.defaultUserRole ? (names.get(t.defaultUserRole) ?? t.defaultUserRole) : null }];
  };
  const settings: CollectionPort<TeamSettingsRow> = {
    list: readSettings,
    get: async (id, o) => (await readSettings(o)).find((t) => t.id === id) ?? null,
    create: () => Promise.reject(new Error('the team is never created by obsync')),
    async update(id, body, o) {
      const role = stringField(body, 'defaultUserRole');
      await api.call(
        {
          method: 'PATCH',
          path: path('team', 'defaultUserRole'),
          body: { roleId: await roleId(role, o) },
          idempotent: true,
          signal: o?.signal,
        },
        anything,
      );
      const after = (await readSettings(o)).find((t) => t.id === id);
      if (!after) throw new Error('the team changed under obsync');
      return after;
    },
    delete: () => Promise.resolve(),
    call: () => Promise.reject(new Error('team settings have no extra calls')),
    waitUntil: (id, _done, o) => settings.get(id, o),
  };
  return { members, settings, roles };
}

/** A string field of a body the kinds built (always there: a missing one is a bug, not a service answer). */
function stringField(body: JsonObject, key: string): string {
  const value = body[key];
  if (typeof value !== 'string') throw new Error(`the body has no ${key}`);
  return value;
}

export interface TeamMemberRow {
  id: string;
  email: string;
  status: 'active' | 'pending';
  name?: string;
  role?: string;
  isCurrentUser?: boolean;
}

export interface TeamSettingsRow {
  id: string;
  defaultUserRole: string | null;
}

/** An active member; `role` only where the server has RBAC. Its access key (a virtual member's) stays out. */
function activeRow(m: Member): TeamMemberRow {
  const row: TeamMemberRow = { id: m.email.toLowerCase(), email: m.email, status: 'active', isCurrentUser: m.isCurrentUser === true };
  if (m.name) row.name = m.name;
  if (m.roleId && m.roleName) row.role = m.roleName;
  return row;
}

/** A pending invitation; its URL stays out. */
function pendingRow(i: Invitation, roleNames: ReadonlyMap<string, string>): TeamMemberRow {
  const row: TeamMemberRow = { id: i.email.toLowerCase(), email: i.email, status: 'pending' };
  if (i.name) row.name = i.name;
  const role = i.roleId ? roleNames.get(i.roleId) : undefined;
  if (role) row.role = role;
  return row;
}
