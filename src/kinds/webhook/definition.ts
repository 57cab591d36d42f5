/**
 * Webhooks (selfhosted-api §1.5, §3.3, §4.3, §4.4; hosted-api §2.1). Adopted by service + name,
 * which the service keeps unique. The URL and, for generic webhooks, the body are returned and
 * compared by the fingerprint of the live value (drift on them is seen); headers, query
 * parameters and an incident.io body are never returned and are compared by the fingerprint of
 * what obsync last sent. PUT keeps omitted headers and query parameters while the URL and service
 * stay, clears them when either changes, and clears an omitted description or body: an update
 * sends the body and description always, headers and query parameters when they or the
 * destination changed. The service refuses to delete a webhook an alert still uses (409); alerts
 * refer to webhooks, so their deletes come first.
 */
import { setOwn } from '../../core/json.js';
import type { Json, JsonObject } from '../../core/wire.js';
import type { Canonical, LiveView, ManagedKind } from '../kind.js';
import { webhookLive, type WebhookLive, type WebhookSpecView } from './model.js';
import { webhookSpecSchema } from './schema.js';
import { webhookToManifest } from './export.js';

type Fingerprints = Readonly<Record<string, string>>;

/** Fields the service never returns, kept by PUT while the destination stays. */
const WRITE_ONLY = ['headers', 'queryParams'] as const;

export const webhook: ManagedKind<'Webhook', WebhookSpecView, WebhookLive> = {
  kind: 'Webhook',
  description:
    'A webhook alerts notify (Slack, a generic HTTP endpoint, incident.io). obsync creates, updates and (with --prune) deletes it; ' +
    'its URL, headers, query parameters and body are sensitive.',
  managed: true,
  noun: 'webhook',
  refersTo: [],
  live: webhookLive,
  routes: {
    'self-hosted': { api: 'observability', path: 'webhooks', paging: 'offset', read: 'list', update: 'PUT' },
    hosted: { api: 'observability', path: 'webhooks', paging: 'offset', read: 'list', update: 'PUT' },
  },
  read: 'always',
  displayName: (live) => live.name,
  liveSecrets: (live) => [live.url, live.body].filter((v): v is string => typeof v === 'string' && v !== ''),
  spec: webhookSpecSchema,
  creatable: true,
  deletable: true,
  references: () => [],

  toManifest: webhookToManifest,
  desiredKey: (res) => keyOf(res.spec.service, res.spec.name),
  liveKey: (live) => keyOf(live.service, live.name),
  bodyKey: (body) => keyOf(body.service, body.name),

  canonicalDesired(res, _refs, fingerprints): Canonical {
    const spec = res.spec;
    const value: JsonObject = {
      service: spec.service,
      name: spec.name,
      url: sensitive(fingerprints, 'url'),
      description: spec.description ?? null,
      body: spec.body === undefined ? null : sensitive(fingerprints, 'body'),
    };
    for (const field of WRITE_ONLY) if (nonEmpty(spec[field])) setOwn(value, field, sensitive(fingerprints, field));
    return { ok: true, value };
  },

  canonicalLive(live, view) {
    const value: JsonObject = {
      service: live.service,
      name: live.name,
      url: live.url === undefined ? null : { $sensitive: view.fingerprint(live.url) },
      description: live.description ?? null,
      body: liveBody(live, view),
    };
    // Write-only: what obsync last sent, absent when it sent none (or `{}`, which the service keeps as none).
    const none = view.fingerprint({});
    for (const field of WRITE_ONLY) {
      const sent = view.secrets[field];
      if (sent !== undefined && sent !== none) setOwn(value, field, { $sensitive: sent });
    }
    return value;
  },

  createPayload(res, _refs, fingerprints) {
    const body = common(res.spec, fingerprints);
    for (const field of WRITE_ONLY) if (nonEmpty(res.spec[field])) setOwn(body, field, sensitive(fingerprints, field));
    return body;
  },

  update(res, _live, { fingerprints, changedPaths }) {
    const body = common(res.spec, fingerprints);
    const destinationChanged = changedPaths.some((p) => p === 'url' || p === 'service');
    for (const field of WRITE_ONLY) {
      if (!destinationChanged && !changedPaths.includes(field)) continue; // kept by the service
      // Slack takes none, not even `{}`; a change of destination clears them anyway.
      if (res.spec.service === 'slack') continue;
      // `{}` clears what an earlier apply sent.
      setOwn(body, field, nonEmpty(res.spec[field]) ? sensitive(fingerprints, field) : {});
    }
    return { payload: body };
  },
};

function keyOf(service: Json | undefined, name: Json | undefined): string {
  return `${typeof service === 'string' ? service : ''}|${typeof name === 'string' ? name.trim() : ''}`;
}

function nonEmpty(map: Record<string, string> | undefined): map is Record<string, string> {
  return map !== undefined && Object.keys(map).length > 0;
}

/** A sensitive desired value: its fingerprint (the applier puts the value back from the manifests). */
function sensitive(fingerprints: Fingerprints, path: string): Json {
  const fp = fingerprints[path];
  return fp === undefined ? null : { $sensitive: fp };
}

/** What every body carries; an omitted description or body is cleared by the service, as the manifest wants. */
function common(spec: WebhookSpecView, fingerprints: Fingerprints): JsonObject {
  const body: JsonObject = { name: spec.name, service: spec.service, url: sensitive(fingerprints, 'url') };
  if (spec.description !== undefined) body.description = spec.description;
  if (spec.body !== undefined) body.body = sensitive(fingerprints, 'body');
  return body;
}

/** A generic webhook's body is returned; an incident.io one is kept but never shown. */
function liveBody(live: WebhookLive, view: LiveView): Json {
  if (live.body !== undefined) return { $sensitive: view.fingerprint(live.body) };
  return live.service === 'incidentio' ? lastSent(view, 'body') : null;
}

function lastSent(view: LiveView, path: string): Json {
  const fp = view.secrets[path];
  return fp === undefined ? null : { $sensitive: fp };
}
