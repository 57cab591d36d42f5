/**
 * The team of self-hosted ClickStack with RBAC (the enterprise edition), as
 * ClickHouse/terraform-provider-clickhouse c320db99 drives it (client/team.go, team_test.go,
 * team_member_resource.go, team_resource.go): a member is a user with a role assignment
 * (`roleId`, `roleName` in the list); an invitation carries its role; inviting an existing
 * account assigns the role at once (`status: active`, `userId`), otherwise a pending invitation
 * answers its invite URL; `PUT /team/members/:id/role` changes a role, `DELETE` of it removes
 * the member (the account stays); `PATCH /team/defaultUserRole` sets the role of new users.
 */
import type { DomainResult, JsonRecord } from './contract.js';
import { randomBytes } from 'node:crypto';
import { failJson, failText, isObjectIdLike, ok } from './result.js';
import { findById, type Store } from './store.js';
import { text } from './json.js';
import { caller, idParamFailure, inviteUrl, middlewareFailure, parseInvitation, type Failure } from './team.js';
import { PREDEFINED_ROLE_IDS, predefinedRoles } from './roles.js';
import { seedId } from './ids.js';

/** The colleague a lone caller gets on the first enterprise start: someone to change the role of, remove and invite back. */
export const COLLEAGUE = { id: seedId(0x200), email: 'ops@sandbox.localhost', name: 'ops' } as const;

/**
 * First start as the enterprise edition: the predefined roles, Member as the default, the caller
 * an Admin and the others Members (a lone caller gets a colleague, a Member).
 */
export function enableRbac(store: Store): void {
  if (store.state.roles.length > 0) return;
  const me = caller(store).id;
  const users: JsonRecord[] = store.state.users.map((u) => ({
    ...u,
    roleId: u.id === me ? PREDEFINED_ROLE_IDS.Admin : PREDEFINED_ROLE_IDS.Member,
  }));
  if (users.length === 1)
    users.push({ ...COLLEAGUE, roleId: PREDEFINED_ROLE_IDS.Member, createdAt: store.nowIso(), updatedAt: store.nowIso() });
  store.commit({ roles: predefinedRoles(), defaultUserRole: PREDEFINED_ROLE_IDS.Member, users });
}

const inTeam = (u: JsonRecord) => typeof u.roleId === 'string';

function roleIdFrom(body: unknown): string | undefined | Failure {
  const roleId = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).roleId : undefined;
  if (roleId === undefined) return undefined;
  if (typeof roleId !== 'string' || !isObjectIdLike(roleId))
    return middlewareFailure('Body', [{ code: 'custom', message: 'Invalid ObjectId', path: ['roleId'] }]);
  return roleId;
}

function unknownRole(store: Store, roleId: string): Failure | undefined {
  return findById(store.state.roles, roleId) ? undefined : failJson(400, 'Role not found');
}

/** The body's required `roleId` of a role that exists, or the refusal the server answers. */
function requiredRole(store: Store, body: unknown): string | Failure {
  const roleId = roleIdFrom(body);
  if (roleId === undefined)
    return middlewareFailure('Body', [
      { code: 'invalid_type', expected: 'string', received: 'undefined', path: ['roleId'], message: 'Required' },
    ]);
  if (typeof roleId !== 'string') return roleId;
  return unknownRole(store, roleId) ?? roleId;
}

export function getTeamRbac(store: Store): DomainResult<JsonRecord> {
  return ok({ id: store.state.teamId, name: store.state.teamName, defaultUserRole: store.state.defaultUserRole });
}

export function setDefaultUserRole(store: Store, body: unknown): DomainResult<JsonRecord> {
  const roleId = requiredRole(store, body);
  if (typeof roleId !== 'string') return roleId;
  store.commit({ defaultUserRole: roleId });
  return ok({ defaultUserRole: roleId });
}

export function listMembersRbac(store: Store): DomainResult<JsonRecord[]> {
  const me = caller(store).id;
  const roleName = (id: JsonRecord[string] | undefined) => text(findById(store.state.roles, text(id))?.name);
  return ok(
    store.state.users.filter(inTeam).map((u) => {
      const out: JsonRecord = {
        id: u.id ?? '',
        email: u.email ?? '',
        name: u.name ?? '',
        isVirtual: u.isVirtual === true,
        roleId: u.roleId ?? '',
        roleName: roleName(u.roleId),
        isCurrentUser: u.id === me,
      };
      if (u.isVirtual === true && typeof u.accessKey === 'string') out.accessKey = u.accessKey;
      return out;
    }),
  );
}

export function inviteRbac(store: Store, body: unknown): DomainResult<JsonRecord> {
  const parsed = parseInvitation(body);
  if ('ok' in parsed) return parsed;
  const given = roleIdFrom(body);
  if (typeof given === 'object') return given;
  const roleId = given ?? store.state.defaultUserRole ?? PREDEFINED_ROLE_IDS.Member;
  const bad = unknownRole(store, roleId);
  if (bad) return bad;
  const email = parsed.email.toLowerCase();
  const account = store.state.users.find((u) => text(u.email).toLowerCase() === email);
  if (account) {
    store.commit({ users: store.state.users.map((u) => (u === account ? { ...u, roleId } : u)) });
    return ok({ email, invitationId: null, userId: text(account.id), status: 'active', url: '' });
  }
  let invite = store.state.invitations.find((i) => i.email === email);
  if (!invite) {
    const now = store.nowIso();
    invite = { id: store.newId(), email, roleId, token: randomBytes(32).toString('hex'), createdAt: now, updatedAt: now };
    if (parsed.name !== undefined) invite.name = parsed.name;
    store.commit({ invitations: [...store.state.invitations, invite] });
  }
  return ok({ email, invitationId: text(invite.id), userId: null, status: 'pending', url: inviteUrl(text(invite.token)) });
}

export function listInvitationsRbac(store: Store): DomainResult<JsonRecord[]> {
  return ok(
    store.state.invitations.map((i) => {
      const out: JsonRecord = {
        id: i.id ?? '',
        createdAt: i.createdAt ?? null,
        email: i.email ?? '',
        roleId: i.roleId ?? '',
        url: inviteUrl(text(i.token)),
      };
      if (i.name !== undefined) out.name = i.name;
      return out;
    }),
  );
}

/** Why `id` is not a member of the team, or undefined when it is. */
function notMember(store: Store, id: string): Failure | undefined {
  const bad = idParamFailure(id);
  if (bad) return bad;
  return store.state.users.some((u) => u.id === id && inTeam(u)) ? undefined : failText(404, 'Not Found');
}

export function setMemberRole(store: Store, id: string, body: unknown): DomainResult<JsonRecord> {
  const missing = notMember(store, id);
  if (missing) return missing;
  const roleId = requiredRole(store, body);
  if (typeof roleId !== 'string') return roleId;
  store.commit({ users: store.state.users.map((u) => (u.id === id ? { ...u, roleId } : u)) });
  return ok({ userId: id, roleId });
}

/** Removes the role assignment: the user leaves the team, the account stays (a later invitation makes it active at once). */
export function removeMemberRbac(store: Store, id: string): DomainResult<JsonRecord> {
  if (id === caller(store).id) return failJson(400, 'You cannot remove yourself from the team');
  const missing = notMember(store, id);
  if (missing) return missing;
  store.commit({ users: store.state.users.map((u) => (u.id === id ? { ...u, roleId: null } : u)) });
  return ok({ success: true });
}
