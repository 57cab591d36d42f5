/**
 * Routes only the self-hosted API server has (hyperdx v2 at b52a6fa8): connections, source
 * writes, team, search, chart series. Matched before the shared observability routes.
 */
import { OBSERVABILITY_ROUTES, p, param, type Route } from './observability-routes.js';

const SELF_HOSTED_ONLY: Route[] = [
  { method: 'GET', pattern: p('connections'), handle: (c) => ({ result: c.domain.listConnections() }) },
  { method: 'GET', pattern: p('connections/:id'), handle: (c) => ({ result: c.domain.getConnection(param(c)) }) },
  { method: 'POST', pattern: p('connections'), handle: (c) => ({ result: c.domain.createConnection(c.body) }) },
  { method: 'PUT', pattern: p('connections/:id'), handle: (c) => ({ result: c.domain.updateConnection(param(c), c.body) }) },
  { method: 'DELETE', pattern: p('connections/:id'), handle: (c) => ({ result: c.domain.deleteConnection(param(c)), empty: true }) },
  { method: 'POST', pattern: p('sources'), handle: (c) => ({ result: c.domain.createSource(c.body) }) },
  { method: 'PUT', pattern: p('sources/:id'), handle: (c) => ({ result: c.domain.updateSource(param(c), c.body) }) },
  { method: 'DELETE', pattern: p('sources/:id'), handle: (c) => ({ result: c.domain.deleteSource(param(c)), empty: true }) },
  { method: 'GET', pattern: p('team'), handle: (c) => ({ result: c.domain.getTeam() }) },
  { method: 'GET', pattern: p('team/members'), handle: (c) => ({ result: c.domain.listTeamMembers() }) },
  { method: 'POST', pattern: p('team/invitation'), handle: (c) => ({ result: c.domain.createInvitation(c.body) }) },
  { method: 'GET', pattern: p('team/invitations'), handle: (c) => ({ result: c.domain.listInvitations() }) },
  { method: 'DELETE', pattern: p('team/invitation/:id'), handle: (c) => ({ result: c.domain.deleteInvitation(param(c)) }) },
  { method: 'DELETE', pattern: p('team/member/:id'), handle: (c) => ({ result: c.domain.removeTeamMember(param(c)) }) },
  // ClickStack with RBAC only (terraform-provider-clickhouse client/team.go, role.go): not routed on oss.
  {
    method: 'PUT',
    pattern: p('team/members/:id/role'),
    edition: 'enterprise',
    handle: (c) => ({ result: c.domain.setMemberRole(param(c), c.body) }),
  },
  {
    method: 'DELETE',
    pattern: p('team/members/:id/role'),
    edition: 'enterprise',
    handle: (c) => ({ result: c.domain.removeMemberRole(param(c)) }),
  },
  {
    method: 'PATCH',
    pattern: p('team/defaultuserrole'),
    edition: 'enterprise',
    handle: (c) => ({ result: c.domain.setDefaultUserRole(c.body) }),
  },
  { method: 'GET', pattern: p('roles'), edition: 'enterprise', handle: (c) => ({ result: c.domain.listRoles() }) },
  { method: 'GET', pattern: p('roles/:id'), edition: 'enterprise', handle: (c) => ({ result: c.domain.getRole(param(c)) }) },
  { method: 'POST', pattern: p('roles'), edition: 'enterprise', handle: (c) => ({ result: c.domain.createRole(c.body) }) },
  { method: 'PUT', pattern: p('roles/:id'), edition: 'enterprise', handle: (c) => ({ result: c.domain.updateRole(param(c), c.body) }) },
  { method: 'DELETE', pattern: p('roles/:id'), edition: 'enterprise', handle: (c) => ({ result: c.domain.deleteRole(param(c)) }) },
  { method: 'POST', pattern: p('search'), handle: (c) => ({ result: c.domain.search(c.body), raw: true }) },
  // The hosted API serves no chart queries (clickhouse-cloud-openapi.json has no such path).
  { method: 'POST', pattern: p('charts/series'), handle: (c) => ({ result: c.domain.chartSeries(c.body) }) },
];

export const SELF_HOSTED_ROUTES: readonly Route[] = [...SELF_HOSTED_ONLY, ...OBSERVABILITY_ROUTES];
