/**
 * Team settings (self-hosted ClickStack with RBAC; terraform-provider-clickhouse team_resource.go):
 * the default role of new users, set with `PATCH /team/defaultUserRole`. The team exists before
 * obsync: its settings are adopted (one object per target, whatever the manifest's name), never
 * created, and deleting the manifest leaves them as they are. Open-source HyperDX has none.
 */
import type { Canonical, ManagedKind } from '../kind.js';
import { teamSettingsLive, type TeamSettingsLive, type TeamSettingsSpecView } from './model.js';
import { teamSettingsSpecSchema } from './schema.js';

const THE_TEAM = 'team';

export const teamSettings: ManagedKind<'TeamSettings', TeamSettingsSpecView, TeamSettingsLive> = {
  kind: 'TeamSettings',
  description:
    "The team's settings (self-hosted ClickStack with RBAC): the default role of new users. Adopted from the team, never created or " +
    'deleted.',
  managed: true,
  noun: 'team settings',
  refersTo: ['Role'],
  live: teamSettingsLive,
  routes: { 'self-hosted': { api: 'observability', path: 'team', paging: 'none', port: 'team-settings' } },
  read: 'when-declared',
  exportOnRequest: true,
  displayName: () => THE_TEAM,
  spec: teamSettingsSpecSchema,
  creatable: false,
  deletable: false,
  references: () => [],

  toManifest: (live, ctx) => {
    if (live.defaultUserRole === null) ctx.note('the team has no default role for new users: set defaultUserRole to manage it');
    return { defaultUserRole: live.defaultUserRole ?? '' };
  },
  desiredKey: () => THE_TEAM,
  liveKey: () => THE_TEAM,

  canonicalDesired(res): Canonical {
    return { ok: true, value: { defaultUserRole: res.spec.defaultUserRole } };
  },
  canonicalLive: (live) => ({ defaultUserRole: live.defaultUserRole }),
  update: (res) => ({ payload: { defaultUserRole: res.spec.defaultUserRole } }),
};
