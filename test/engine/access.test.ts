/**
 * Issue 44 end to end on the sandbox's domain (in process, both editions): invite, role change in
 * place, a pending invitation's role re-issued, removal and revocation by prune, the lock-out
 * guard, roles refused on open-source HyperDX, no perpetual diff on a role the server adds
 * `read Connection` to, and export → plan giving zero changes for a team of 200 members and 10
 * roles. The invite URL never appears in a plan, an apply report, the inventory or an export.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/core/plan.js';
import { readLive } from '../../src/engine/live.js';
import { exportLive } from '../../src/export/exporter.js';
import { definitionOf } from '../../src/kinds/registry.js';
import { renderPlansMarkdown } from '../../src/render/plan-markdown.js';
import type { JsonRecord } from '../../src/sandbox/domain/contract.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';
import { World } from '../support/world.js';

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await w.close();
});

function world(edition: 'oss' | 'enterprise', snapshot?: JsonRecord) {
  const domain = createObservabilityDomain(snapshot ? { snapshot, edition } : { seed: 'demo', edition });
  const w = new World('self-hosted', inProcessPort(domain, 'self-hosted', edition));
  worlds.push(w);
  return { w, domain };
}

const doc = (kind: string, name: string, spec: Record<string, unknown>) =>
  `apiVersion: obsync/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${JSON.stringify(spec)}\n`;
const changes = (p: Plan) => p.steps.filter((s) => s.action !== 'noop').map((s) => `${s.action} ${s.address}`);
const urls = (domain: ReturnType<typeof createObservabilityDomain>) =>
  (domain.listInvitations() as { value: JsonRecord[] }).value.map((i) => String(i.url));

describe('access as code on ClickStack with RBAC', () => {
  const { w, domain } = world('enterprise');
  const editors = doc('Role', 'editors', {
    name: 'Editors',
    description: 'edit dashboards',
    permissions: [
      { action: 'manage', subject: 'Dashboard' },
      { action: 'read', subject: 'Source', conditions: { name: 'Prod' } },
    ],
  });
  const files = (ann: string, ops: string | null) => ({
    'roles.yaml': editors,
    'ann.yaml': doc('TeamMember', 'ann', { email: 'ann@example.com', name: 'Ann', role: ann }),
    ...(ops ? { 'ops.yaml': doc('TeamMember', 'ops', { email: 'ops@sandbox.localhost', role: ops }) } : {}),
    'team.yaml': doc('TeamSettings', 'team', { defaultUserRole: 'ReadOnly' }),
  });

  it('invites, changes a role in place, sets the default role, and then plans no change', async () => {
    const { plan, report } = await w.apply(files('Editors', 'ReadOnly'));
    expect(changes(plan)).toEqual(['create Role/editors', 'create TeamMember/ann', 'update TeamMember/ops', 'update TeamSettings/team']);
    expect(report.summary.failed).toBe(0);
    const members = (domain.listTeamMembers() as { value: JsonRecord[] }).value;
    expect(members.find((m) => m.email === 'ops@sandbox.localhost')?.roleName).toBe('ReadOnly');
    const invites = (domain.listInvitations() as { value: JsonRecord[] }).value;
    expect(invites.map((i) => i.email)).toEqual(['ann@example.com']);
    // The server added read Connection to the role: no perpetual diff.
    expect(changes(await w.plan(files('Editors', 'ReadOnly')))).toEqual([]);
    const seen = JSON.stringify([plan, report, await w.inventory.entries()]);
    for (const url of urls(domain)) expect(seen).not.toContain(url);
    const md = renderPlansMarkdown([plan]);
    expect(md).toContain('| <code>ops@sandbox.localhost</code> | role changed | Member → ReadOnly |');
    expect(md).toContain('| <code>ann@example.com</code> | invited | — → Editors |');
  });

  it("re-issues a pending invitation with its new role, and refuses to demote the key's own user or leave no admin", async () => {
    const before = urls(domain);
    const { plan } = await w.apply(files('Member', 'ReadOnly'));
    expect(changes(plan)).toEqual(['update TeamMember/ann']);
    expect(urls(domain)).toHaveLength(1);
    expect(urls(domain)).not.toEqual(before);
    const me = doc('TeamMember', 'me', { email: 'sandbox@localhost', role: 'ReadOnly' });
    const refused = await w.plan({ ...files('Member', 'ReadOnly'), 'me.yaml': me });
    expect(refused.errored).toBe(true);
    expect(refused.diagnostics.find((d) => d.code === 'lockout')?.message).toContain('sandbox@localhost');
    expect(changes(refused).filter((c) => c.includes('TeamMember/me'))).toEqual([]);
  });

  it('removes an owned member and revokes a pending invitation by prune, listed by email', async () => {
    // The key's own user declared (and adopted): a kind left without any manifest is never pruned whole.
    const me = doc('TeamMember', 'me', { email: 'sandbox@localhost' });
    const kept = { 'roles.yaml': editors, 'me.yaml': me, 'team.yaml': doc('TeamSettings', 'team', { defaultUserRole: 'ReadOnly' }) };
    const { plan } = await w.apply(kept, { prune: true });
    expect(changes(plan)).toEqual(['delete TeamMember/ann', 'delete TeamMember/ops']);
    expect(renderPlansMarkdown([plan])).toContain('| <code>ann@example.com</code> | removed (or invitation revoked) | Member → — |');
    expect((domain.listInvitations() as { value: JsonRecord[] }).value).toEqual([]);
    expect((domain.listTeamMembers() as { value: JsonRecord[] }).value.map((m) => m.email)).toEqual(['sandbox@localhost']);
  });
});

describe('access as code on open-source HyperDX', () => {
  const { w, domain } = world('oss');

  it('refuses roles and team settings clearly, and manages members without a role', async () => {
    const refused = await w.plan({
      'r.yaml': doc('Role', 'r', { name: 'Editors', permissions: [] }),
      't.yaml': doc('TeamSettings', 't', { defaultUserRole: 'Member' }),
    });
    expect(refused.diagnostics.filter((d) => d.code === 'unsupported').map((d) => d.message)).toEqual([
      expect.stringContaining('no RBAC (open-source HyperDX)'),
      expect.stringContaining('no RBAC (open-source HyperDX)'),
    ]);
    // A role on a server without RBAC: noted in the plan, refused by the apply with the same words.
    const withRole = await w.apply({ 'eve.yaml': doc('TeamMember', 'eve', { email: 'eve@example.com', role: 'Member' }) });
    expect(withRole.report.results.find((r) => r.address === 'TeamMember/eve')).toMatchObject({
      outcome: 'failed',
      message: expect.stringContaining('no RBAC (open-source HyperDX)') as string,
    });
    expect((domain.listInvitations() as { value: JsonRecord[] }).value).toEqual([]);
    const { plan } = await w.apply({ 'bob.yaml': doc('TeamMember', 'bob', { email: 'bob@example.com' }) });
    expect(changes(plan)).toEqual(['create TeamMember/bob']);
    expect(changes(await w.plan({ 'bob.yaml': doc('TeamMember', 'bob', { email: 'bob@example.com' }) }))).toEqual([]);
    const pruned = await w.apply({ 'keep.yaml': doc('TeamMember', 'me', { email: 'sandbox@localhost' }) }, { prune: true });
    expect(changes(pruned.plan)).toEqual(['delete TeamMember/bob']);
    expect((domain.listInvitations() as { value: JsonRecord[] }).value).toEqual([]);
  });
});

describe('export → plan on a team of 200 members and 10 roles', () => {
  it('gives zero changes', async () => {
    const base = createObservabilityDomain({ seed: 'none', edition: 'enterprise' });
    for (let r = 0; r < 10; r++)
      base.createRole({
        name: `Role ${r}`,
        permissions: [
          { action: 'read', subject: 'Dashboard' },
          { action: r % 2 ? 'manage' : 'read', subject: 'Alert', inverted: r === 3 },
        ],
      });
    const snapshot = base.snapshot() as { state: { users: JsonRecord[]; roles: JsonRecord[] } };
    const roleIds = snapshot.state.roles.map((r) => String(r.id));
    for (let i = 0; snapshot.state.users.length < 200; i++)
      snapshot.state.users.push({
        id: (0x100000 + i).toString(16).padStart(24, 'a'),
        email: `user${i}@example.com`,
        name: `User ${i}`,
        roleId: roleIds[i % roleIds.length] ?? null,
      });
    const { w } = world('enterprise', snapshot as unknown as JsonRecord);
    const kinds = (['Role', 'TeamMember', 'TeamSettings'] as const).map((k) => definitionOf(k));
    const live = await readLive(w.port, kinds);
    expect(live.objects('TeamMember')).toHaveLength(200);
    expect(live.objects('Role')).toHaveLength(10);
    const exported = exportLive({ objects: (k) => live.objects(k), owned: [] });
    const plan = await w.plan(Object.fromEntries(exported.manifests.map((m) => [m.file, m.text])));
    expect(plan.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(changes(plan)).toEqual([]);
    expect(plan.steps).toHaveLength(211);
  });
});
