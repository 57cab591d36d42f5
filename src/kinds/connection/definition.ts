/**
 * Connections (selfhosted-api §1.7, §3.6, §4.3; the hosted variant has none). The password is
 * write-only: compared by the fingerprint of what obsync last sent, and owned only when the
 * manifest declares one (the service keeps a password an update leaves out and cannot clear it).
 * PUT keeps an omitted setting prefix and Prometheus flag, so an update sends both (null clears
 * the prefix). Deleting a connection deletes nothing with it; sources that name it are left
 * pointing at nothing, so their deletes come first (sources refer to connections).
 */
import type { JsonObject } from '../../core/wire.js';
import type { Canonical, ManagedKind } from '../kind.js';
import { connectionLive, type ConnectionLive, type ConnectionSpecView } from './model.js';
import { connectionSpecSchema } from './schema.js';
import { connectionToManifest } from './export.js';
import { isJsonObject as isObject } from '../../core/json.js';

export const connection: ManagedKind<'Connection', ConnectionSpecView, ConnectionLive> = {
  kind: 'Connection',
  description:
    'A connection to a ClickHouse server (self-hosted variant only); sources and Raw SQL tiles name it. obsync creates, updates and ' +
    '(with --prune) deletes it; its password is sensitive.',
  managed: true,
  noun: 'connection',
  refersTo: [],
  live: connectionLive,
  routes: {
    'self-hosted': { api: 'observability', path: 'connections', paging: 'none', update: 'PUT' },
  },
  read: 'always',
  displayName: (live) => live.name,
  spec: connectionSpecSchema,
  creatable: true,
  deletable: true,
  references: () => [],

  toManifest: connectionToManifest,
  desiredKey: (res) => keyOf(res.spec.name),
  liveKey: (live) => keyOf(live.name),
  bodyKey: (body) => keyOf(typeof body.name === 'string' ? body.name : ''),

  canonicalDesired(res, _refs, fingerprints): Canonical {
    const value = fields(res.spec);
    const password = fingerprints.password;
    if (res.spec.password !== undefined && password !== undefined) value.password = { $sensitive: password };
    return { ok: true, value };
  },

  canonicalLive(live, { expected, secrets }) {
    const out: JsonObject = {
      name: live.name,
      host: live.host,
      username: live.username,
      hyperdxSettingPrefix: live.hyperdxSettingPrefix ?? null,
      isPrometheusEndpoint: live.isPrometheusEndpoint ?? false,
    };
    // Absent when obsync never sent one: the plan then shows the password as added, not changed.
    if (isObject(expected) && expected.password !== undefined && secrets.password !== undefined)
      out.password = { $sensitive: secrets.password };
    return out;
  },

  createPayload(res, _refs, fingerprints) {
    const body: JsonObject = { name: res.spec.name, host: res.spec.host, username: res.spec.username };
    if (res.spec.password !== undefined && fingerprints.password !== undefined) body.password = { $sensitive: fingerprints.password };
    if (res.spec.hyperdxSettingPrefix !== undefined) body.hyperdxSettingPrefix = res.spec.hyperdxSettingPrefix;
    if (res.spec.isPrometheusEndpoint !== undefined) body.isPrometheusEndpoint = res.spec.isPrometheusEndpoint;
    return body;
  },

  update(res, _live, { fingerprints, changedPaths }) {
    const body = fields(res.spec);
    // An unchanged password is never sent again (an omitted one is kept).
    if (changedPaths.includes('password') && fingerprints.password !== undefined) body.password = { $sensitive: fingerprints.password };
    return { payload: body };
  },
};

function keyOf(name: string): string {
  return `name:${name}`;
}

/** The fields compared and always sent on update, with the service's defaults. */
function fields(spec: ConnectionSpecView): JsonObject {
  return {
    name: spec.name,
    host: spec.host,
    username: spec.username,
    hyperdxSettingPrefix: spec.hyperdxSettingPrefix ?? null,
    isPrometheusEndpoint: spec.isPrometheusEndpoint ?? false,
  };
}
