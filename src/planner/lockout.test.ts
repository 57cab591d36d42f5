import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adminRoles, lockoutRefusals, type MemberChange, type MemberState } from './lockout.js';

const isAdmin = adminRoles(['Owners']);
const m = (email: string, role: string | undefined, extra: Partial<MemberState> = {}): MemberState => ({
  id: email,
  email,
  status: 'active',
  ...(role === undefined ? {} : { role }),
  ...extra,
});
const del = (id: string): MemberChange => ({ address: `TeamMember/${id}`, id, action: 'delete' });
const set = (id: string, role: string): MemberChange => ({ address: `TeamMember/${id}`, id, action: 'update', role });

describe('lock-out guard', () => {
  const team = [m('me@x.io', 'Admin', { isCurrentUser: true }), m('ann@x.io', 'Admin'), m('bob@x.io', 'Member')];

  it("refuses removing or demoting the key's own user, naming it", () => {
    const refused = lockoutRefusals(team, [del('me@x.io'), set('bob@x.io', 'ReadOnly')], isAdmin);
    expect(refused).toEqual([{ addresses: ['TeamMember/me@x.io'], message: expect.stringContaining('me@x.io') as string }]);
    expect(lockoutRefusals(team, [set('me@x.io', 'Member')], isAdmin)[0]?.message).toContain('never demotes');
    // To another admin-equivalent role is no demotion.
    expect(lockoutRefusals(team, [set('me@x.io', 'Owners')], isAdmin)).toEqual([]);
  });

  it('refuses leaving the team without an admin, naming every admin it would lose', () => {
    const noKeyAdmin = [m('me@x.io', 'Member', { isCurrentUser: true }), m('ann@x.io', 'Admin'), m('cy@x.io', 'Owners')];
    const refused = lockoutRefusals(noKeyAdmin, [del('ann@x.io'), set('cy@x.io', 'ReadOnly')], isAdmin);
    expect(refused).toEqual([
      { addresses: ['TeamMember/ann@x.io', 'TeamMember/cy@x.io'], message: expect.stringContaining('ann@x.io, cy@x.io') as string },
    ]);
    expect(lockoutRefusals(noKeyAdmin, [del('ann@x.io')], isAdmin)).toEqual([]);
  });

  it('counts every member as admin-equivalent where the server has no RBAC, and pending invitations as no one', () => {
    const oss = [m('me@x.io', undefined, { isCurrentUser: true }), m('ann@x.io', undefined)];
    expect(lockoutRefusals(oss, [del('ann@x.io')], isAdmin)).toEqual([]);
    expect(lockoutRefusals(oss, [del('me@x.io')], isAdmin)).toHaveLength(1);
    const pendingAdmin = [
      m('me@x.io', 'Member', { isCurrentUser: true }),
      m('ann@x.io', 'Admin'),
      m('new@x.io', 'Admin', { status: 'pending' }),
    ];
    expect(lockoutRefusals(pendingAdmin, [del('ann@x.io')], isAdmin)).toHaveLength(1);
  });

  it('property: what is left after the changes it allows keeps the key user as it was and an admin if there was one', () => {
    const roles = fc.constantFrom('Admin', 'Owners', 'Member', 'ReadOnly', undefined);
    const arb = fc
      .uniqueArray(fc.record({ n: fc.integer({ min: 0, max: 12 }), role: roles, pending: fc.boolean() }), {
        selector: (x) => x.n,
        minLength: 1,
        maxLength: 8,
      })
      .chain((rows) =>
        fc.tuple(
          fc.constant(rows),
          fc.integer({ min: 0, max: rows.length - 1 }),
          fc.uniqueArray(fc.record({ i: fc.integer({ min: 0, max: rows.length - 1 }), to: fc.option(roles, { nil: null }) }), {
            selector: (c) => c.i,
          }),
        ),
      );
    fc.assert(
      fc.property(arb, ([rows, meIndex, picks]) => {
        const members = rows.map((r, i) =>
          m(`u${r.n}@x.io`, r.role, { status: i === meIndex ? 'active' : r.pending ? 'pending' : 'active', isCurrentUser: i === meIndex }),
        );
        const changes = picks.map(({ i, to }) => {
          const id = members[i]?.id ?? '';
          return to === null || to === undefined ? del(id) : set(id, to);
        });
        const refused = new Set(lockoutRefusals(members, changes, isAdmin).flatMap((r) => r.addresses));
        const after = new Map(members.map((x) => [x.id, x] as const));
        for (const c of changes.filter((x) => !refused.has(x.address))) {
          if (c.action === 'delete') after.delete(c.id);
          else after.set(c.id, { ...(after.get(c.id) as MemberState), role: c.role });
        }
        const me = members[meIndex] as MemberState;
        const meAfter = after.get(me.id);
        expect(meAfter).toBeDefined();
        if (isAdmin(me.role)) expect(isAdmin(meAfter?.role)).toBe(true);
        const admins = (list: Iterable<MemberState>) => [...list].filter((x) => x.status === 'active' && isAdmin(x.role)).length;
        if (admins(members) > 0) expect(admins(after.values())).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
