/**
 * Team members (self-hosted; hyperdx v2/team.ts, terraform-provider-clickhouse client/team.go).
 * Adopted by email. Create invites: an existing account gets the role at once, otherwise a
 * pending invitation waits (its invite URL is a secret, never part of the live form). A role
 * change is made in place (a pending invitation is re-issued); delete removes the member or
 * revokes the invitation. The role is compared only when the manifest names one; the name only
 * travels with an invitation. The lock-out guard (src/planner/lockout.ts) keeps the key's own
 * user and the last admin.
 */
import type { JsonObject } from '../../core/wire.js';
import type { Canonical, ManagedKind } from '../kind.js';
import { isJsonObject } from '../../core/json.js';
import { teamMemberLive, type TeamMemberLive, type TeamMemberSpecView } from './model.js';
import { teamMemberSpecSchema } from './schema.js';
import { teamMemberToManifest } from './export.js';

export const teamMember: ManagedKind<'TeamMember', TeamMemberSpecView, TeamMemberLive> = {
  kind: 'TeamMember',
  description:
    'A member of the team (self-hosted): obsync invites them, changes their role in place and (with --prune) removes them or ' +
    'revokes the invitation; never the key’s own user or the last admin.',
  managed: true,
  noun: 'team member',
  refersTo: ['Role'],
  live: teamMemberLive,
  routes: { 'self-hosted': { api: 'observability', path: 'team/members', paging: 'none', port: 'team-members' } },
  read: 'when-declared',
  exportOnRequest: true,
  displayName: (live) => live.email,
  spec: teamMemberSpecSchema,
  creatable: true,
  deletable: true,
  references: () => [],

  toManifest: teamMemberToManifest,
  desiredKey: (res) => keyOf(res.spec.email),
  liveKey: (live) => keyOf(live.email),
  bodyKey: (body) => keyOf(typeof body.email === 'string' ? body.email : ''),

  canonicalDesired(res): Canonical {
    const value: JsonObject = { email: keyOf(res.spec.email) };
    if (res.spec.role !== undefined) value.role = res.spec.role;
    return { ok: true, value };
  },

  canonicalLive(live, { expected }) {
    const value: JsonObject = { email: keyOf(live.email) };
    // Owned only when declared: a member whose manifest names no role keeps what the service gave.
    if (isJsonObject(expected) && expected.role !== undefined) value.role = live.role ?? null;
    return value;
  },

  createPayload(res) {
    const body: JsonObject = { email: res.spec.email };
    if (res.spec.name !== undefined) body.name = res.spec.name;
    if (res.spec.role !== undefined) body.role = res.spec.role;
    return body;
  },

  update(res) {
    const body: JsonObject = { email: res.spec.email };
    if (res.spec.role !== undefined) body.role = res.spec.role;
    return { payload: body };
  },

  notes(res, live) {
    if (res.spec.role !== undefined && live.status === 'active' && live.role === undefined)
      return ['the service reports no role for this member: open-source HyperDX has no RBAC, and the apply will refuse the role change'];
    return live.status === 'pending' ? ['a pending invitation: its role changes by re-issuing it (the old invite URL stops working)'] : [];
  },
};

/** Emails are compared without case, as the service stores them lower-cased. */
function keyOf(email: string): string {
  return email.trim().toLowerCase();
}
