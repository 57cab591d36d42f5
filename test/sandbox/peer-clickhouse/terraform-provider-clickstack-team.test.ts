/**
 * Ported from ClickHouse/terraform-provider-clickhouse @ c320db99ba37b84eca0181a074b2501f946d4d04,
 * internal/service/clickstack/client/team_test.go and role_test.go (their mock server's paths,
 * bodies and answers, here the sandbox's enterprise edition), with the quirks of
 * team_member_resource.go and role_resource.go; and the open-source edition refusing what only
 * ClickStack with RBAC serves. One sandbox per edition for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => z.record(z.string(), z.unknown()).parse(v);
const list = (v: unknown): Json[] => z.array(z.record(z.string(), z.unknown())).parse(v);

let ee: SandboxHandle;
let oss: SandboxHandle;
beforeAll(async () => {
  [ee, oss] = await Promise.all([
    startSandbox({ port: 0, host: '127.0.0.1', rateLimit: 'off', edition: 'enterprise' }),
    startSandbox({ port: 0, host: '127.0.0.1', rateLimit: 'off' }),
  ]);
});
afterAll(async () => {
  await Promise.all([ee.close(), oss.close()]);
});

async function call(
  h: SandboxHandle,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: unknown; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${h.credentials.apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${h.url}/api/v2${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let data: unknown;
  try {
    data = (JSON.parse(text) as { data?: unknown }).data;
  } catch {
    data = undefined;
  }
  return { status: res.status, data, text };
}
const ok = async (h: SandboxHandle, method: string, path: string, body?: unknown) => {
  const r = await call(h, method, path, body);
  expect(r.status, r.text).toBe(200);
  return r.data;
};
const roleIdOf = async (name: string) => String(list(await ok(ee, 'GET', '/roles')).find((r) => r.name === name)?.id);

describe('terraform-provider clickstack/client/team_test.go (enterprise edition)', () => {
  it(
    'TestGetTeam: GET /team answers id, name and defaultUserRole; ' + 'TestSetDefaultUserRole: PATCH /team/defaultUserRole {roleId}',
    async () => {
      const team = obj(await ok(ee, 'GET', '/team'));
      expect(team).toMatchObject({ id: expect.any(String), name: expect.any(String), defaultUserRole: await roleIdOf('Member') });
      const readOnly = await roleIdOf('ReadOnly');
      expect(await ok(ee, 'PATCH', '/team/defaultUserRole', { roleId: readOnly })).toEqual({ defaultUserRole: readOnly });
      expect(obj(await ok(ee, 'GET', '/team')).defaultUserRole).toBe(readOnly);
      expect((await call(ee, 'PATCH', '/team/defaultUserRole', { roleId: 'ffffffffffffffffffffffff' })).status).toBe(400);
      await ok(ee, 'PATCH', '/team/defaultUserRole', { roleId: await roleIdOf('Member') });
    },
  );

  it('TestListTeamMembers: members carry roleId, roleName, isVirtual and isCurrentUser', async () => {
    const members = list(await ok(ee, 'GET', '/team/members'));
    expect(members.find((m) => m.isCurrentUser === true)).toMatchObject({
      roleId: await roleIdOf('Admin'),
      roleName: 'Admin',
      isVirtual: false,
    });
  });

  it('TestInviteTeamMember_Pending / TestListInvitations / TestDeleteInvitation_NotFound', async () => {
    const member = await roleIdOf('Member');
    const res = obj(await ok(ee, 'POST', '/team/invitation', { email: 'New@User.com', roleId: member }));
    expect(res).toMatchObject({ email: 'new@user.com', status: 'pending', userId: null, invitationId: expect.any(String) });
    expect(String(res.url)).toContain('/join-team?token=');
    const invites = list(await ok(ee, 'GET', '/team/invitations'));
    expect(invites.find((i) => i.id === res.invitationId)).toMatchObject({ email: 'new@user.com', roleId: member });
    expect((await call(ee, 'DELETE', `/team/invitation/${String(res.invitationId)}`)).status).toBe(200);
    expect((await call(ee, 'DELETE', `/team/invitation/${String(res.invitationId)}`)).status).toBe(404);
  });

  it('TestInviteTeamMember_NoRole: an invitation without roleId gets the default role', async () => {
    const res = obj(await ok(ee, 'POST', '/team/invitation', { email: 'norole@user.com' }));
    const invite = list(await ok(ee, 'GET', '/team/invitations')).find((i) => i.id === res.invitationId);
    expect(invite?.roleId).toBe(await roleIdOf('Member'));
    await ok(ee, 'DELETE', `/team/invitation/${String(res.invitationId)}`);
  });

  it(
    'TestUpdateMemberRole / TestRemoveMember / TestInviteTeamMember_Active: PUT and DELETE /team/members/:id/role; an existing account ' +
      'is active at once',
    async () => {
      const members = list(await ok(ee, 'GET', '/team/members'));
      const me = members.find((m) => m.isCurrentUser === true);
      const ops = members.find((m) => m.email === 'ops@sandbox.localhost');
      expect(ops).toMatchObject({ roleName: 'Member', isCurrentUser: false });
      const readOnly = await roleIdOf('ReadOnly');
      expect(await ok(ee, 'PUT', `/team/members/${String(ops?.id)}/role`, { roleId: readOnly })).toEqual({
        userId: ops?.id,
        roleId: readOnly,
      });
      expect(list(await ok(ee, 'GET', '/team/members')).find((m) => m.id === ops?.id)?.roleName).toBe('ReadOnly');
      expect((await call(ee, 'PUT', `/team/members/${String(ops?.id)}/role`, { roleId: 'ffffffffffffffffffffffff' })).status).toBe(400);
      // Removing drops the role assignment; the account stays, and the next invitation makes it active at once.
      expect(await ok(ee, 'DELETE', `/team/members/${String(ops?.id)}/role`)).toEqual({ success: true });
      expect(list(await ok(ee, 'GET', '/team/members')).some((m) => m.id === ops?.id)).toBe(false);
      const again = obj(await ok(ee, 'POST', '/team/invitation', { email: 'OPS@sandbox.localhost', roleId: await roleIdOf('Member') }));
      expect(again).toMatchObject({ status: 'active', invitationId: null, userId: ops?.id, url: '' });
      expect((await call(ee, 'DELETE', `/team/members/${String(me?.id)}/role`)).text).toContain('You cannot remove yourself from the team');
      expect((await call(ee, 'PUT', '/team/members/ffffffffffffffffffffffff/role', { roleId: readOnly })).status).toBe(404);
      expect((await call(ee, 'DELETE', '/team/members/ffffffffffffffffffffffff/role')).status).toBe(404);
    },
  );
});

describe('terraform-provider clickstack/client/role_test.go (enterprise edition)', () => {
  it('TestListRoles: the predefined roles are listed with isPredefined', async () => {
    const roles = list(await ok(ee, 'GET', '/roles'));
    expect(roles.filter((r) => r.isPredefined === true).map((r) => r.name)).toEqual(['Admin', 'Member', 'ReadOnly']);
  });

  it(
    'TestCreateRole / TestCreateRole_WithConditions: integration ' + 'defaults to mongodb, conditions round-trip, read Connection is added',
    async () => {
      const role = obj(
        await ok(ee, 'POST', '/roles', {
          name: 'Editor',
          permissions: [
            { action: 'read', subject: 'Dashboard', integration: 'mongodb', inverted: false },
            { action: 'read', subject: 'Source', conditions: { name: 'Prod' } },
          ],
        }),
      );
      expect(role).toMatchObject({ name: 'Editor', isPredefined: false });
      expect(role.permissions).toEqual([
        { action: 'read', subject: 'Dashboard', integration: 'mongodb', inverted: false },
        { action: 'read', subject: 'Source', integration: 'mongodb', conditions: { name: 'Prod' } },
        { action: 'read', subject: 'Connection', integration: 'mongodb' },
      ]);
      expect(obj(await ok(ee, 'GET', `/roles/${String(role.id)}`)).name).toBe('Editor');
      expect((await call(ee, 'POST', '/roles', { name: 'Editor', permissions: [] })).status).toBe(400);
      expect((await call(ee, 'POST', '/roles', { name: 'Bad', permissions: [{ action: 'fly', subject: 'x' }] })).status).toBe(400);
    },
  );

  it('TestUpdateRole: permissions always sent, an omitted name kept; TestDeleteRole; TestGetRole_NotFound', async () => {
    const role = obj(await ok(ee, 'POST', '/roles', { name: 'Temp', description: 'd', permissions: [] }));
    const updated = obj(await ok(ee, 'PUT', `/roles/${String(role.id)}`, { permissions: [] }));
    expect(updated).toMatchObject({ id: role.id, name: 'Temp', description: 'd' });
    expect((await call(ee, 'PUT', `/roles/${await roleIdOf('Admin')}`, { permissions: [] })).status).toBe(400);
    expect((await call(ee, 'DELETE', `/roles/${await roleIdOf('Admin')}`)).status).toBe(400);
    expect(await ok(ee, 'DELETE', `/roles/${String(role.id)}`)).toEqual({ success: true });
    expect((await call(ee, 'GET', `/roles/${String(role.id)}`)).status).toBe(404);
  });
});

describe('the open-source edition (hyperdx v2/team.ts): no RBAC', () => {
  it('serves no /roles, no role assignment and no default role; members and invitations carry no role', async () => {
    for (const [method, path] of [
      ['GET', '/roles'],
      ['PUT', '/team/members/ffffffffffffffffffffffff/role'],
      ['PATCH', '/team/defaultUserRole'],
    ] as const) {
      const r = await call(oss, method, path, method === 'GET' ? undefined : { roleId: 'ffffffffffffffffffffffff' });
      expect(r.status).toBe(404);
      expect(r.text).toContain(`Cannot ${method}`);
    }
    expect(obj(await ok(oss, 'GET', '/team'))).not.toHaveProperty('defaultUserRole');
    expect(list(await ok(oss, 'GET', '/team/members'))[0]).not.toHaveProperty('roleId');
    // zod strips the unknown roleId: the invitation is made without a role.
    const res = obj(await ok(oss, 'POST', '/team/invitation', { email: 'oss@user.com', roleId: 'ffffffffffffffffffffffff' }));
    expect(res).toMatchObject({ status: 'pending' });
    expect(list(await ok(oss, 'GET', '/team/invitations'))[0]).not.toHaveProperty('roleId');
  });
});
