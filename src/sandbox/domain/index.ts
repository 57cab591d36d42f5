/**
 * The sandbox's observability domain (contract in ./contract.ts), assembled from one module
 * per resource over a single JSON-serialisable store.
 */
import type { CreateObservabilityDomain, ObservabilityDomain } from './contract.js';
import * as alerts from './alerts.js';
import * as connections from './connections.js';
import * as dashboards from './dashboards.js';
import * as savedSearches from './saved-searches.js';
import { search } from './search.js';
import { demoState, emptyDemoTeamState, teamUser } from './seed.js';
import { chartSeries } from './series.js';
import * as sources from './sources.js';
import { emptyState, Store, type DomainState } from './store.js';
import * as team from './team.js';
import * as rbac from './team-rbac.js';
import * as roles from './roles.js';
import * as webhooks from './webhooks.js';

export { DEMO_IDS } from './seed.js';

export const createObservabilityDomain: CreateObservabilityDomain = (opts = {}) => {
  const now = opts.now ?? (() => new Date());
  const initial = (): DomainState => {
    if (opts.seed !== 'none') return demoState();
    const t = opts.team;
    return t ? emptyState(t.id, teamUser(t.userId, t.userEmail, now().toISOString()), t.name) : emptyDemoTeamState();
  };
  const store = opts.snapshot ? Store.restore(opts.snapshot, now) : new Store(initial(), now);
  const edition = opts.edition ?? 'oss';
  const enterprise = edition === 'enterprise';
  if (enterprise) rbac.enableRbac(store);
  const flags = new Set(opts.teamFlags ?? []);
  const domain: ObservabilityDomain = {
    listDashboards: () => dashboards.listDashboards(store),
    getDashboard: (id) => dashboards.getDashboard(store, id),
    createDashboard: (body, caller) => dashboards.createDashboard(store, body, caller),
    updateDashboard: (id, body, caller) => dashboards.updateDashboard(store, id, body, caller),
    deleteDashboard: (id) => dashboards.deleteDashboard(store, id),
    validateDashboard: (body) => dashboards.validateDashboard(store, body),
    listAlerts: (query) => alerts.listAlerts(store, query),
    getAlert: (id) => alerts.getAlert(store, id),
    createAlert: (body, caller) => alerts.createAlert(store, body, caller, flags),
    updateAlert: (id, body, caller) => alerts.updateAlert(store, id, body, caller, flags),
    deleteAlert: (id) => alerts.deleteAlert(store, id),
    listSources: () => sources.listSources(store),
    getSource: (id) => sources.getSource(store, id),
    createSource: (body) => sources.createSource(store, body),
    updateSource: (id, body) => sources.updateSource(store, id, body),
    deleteSource: (id) => sources.deleteSource(store, id),
    listConnections: () => connections.listConnections(store),
    getConnection: (id) => connections.getConnection(store, id),
    createConnection: (body) => connections.createConnection(store, body),
    updateConnection: (id, body) => connections.updateConnection(store, id, body),
    deleteConnection: (id) => connections.deleteConnection(store, id),
    whoami: () => team.whoami(store),
    getTeam: () => (enterprise ? rbac.getTeamRbac(store) : team.getTeam(store)),
    listTeamMembers: () => (enterprise ? rbac.listMembersRbac(store) : team.listTeamMembers(store)),
    createInvitation: (body) => (enterprise ? rbac.inviteRbac(store, body) : team.createInvitation(store, body)),
    listInvitations: () => (enterprise ? rbac.listInvitationsRbac(store) : team.listInvitations(store)),
    deleteInvitation: (id) => team.deleteInvitation(store, id),
    removeTeamMember: (id) => (enterprise ? rbac.removeMemberRbac(store, id) : team.removeTeamMember(store, id)),
    edition,
    setMemberRole: (id, body) => rbac.setMemberRole(store, id, body),
    removeMemberRole: (id) => rbac.removeMemberRbac(store, id),
    setDefaultUserRole: (body) => rbac.setDefaultUserRole(store, body),
    listRoles: () => roles.listRoles(store),
    getRole: (id) => roles.getRole(store, id),
    createRole: (body) => roles.createRole(store, body),
    updateRole: (id, body) => roles.updateRole(store, id, body),
    deleteRole: (id) => roles.deleteRole(store, id),
    search: (body) => search(store, body, opts.telemetry),
    listWebhooks: (query) => webhooks.listWebhooks(store, query),
    createWebhook: (body) => webhooks.createWebhook(store, body),
    updateWebhook: (id, body) => webhooks.updateWebhook(store, id, body),
    deleteWebhook: (id) => webhooks.deleteWebhook(store, id),
    listSavedSearches: (query) => savedSearches.listSavedSearches(store, query),
    getSavedSearch: (id) => savedSearches.getSavedSearch(store, id),
    createSavedSearch: (body) => savedSearches.createSavedSearch(store, body),
    updateSavedSearch: (id, body) => savedSearches.updateSavedSearch(store, id, body),
    deleteSavedSearch: (id) => savedSearches.deleteSavedSearch(store, id),
    chartSeries: (body) => chartSeries(store, body, opts.telemetry),
    snapshot: () => store.snapshot(),
    get version() {
      return store.version;
    },
  };
  return domain;
};
