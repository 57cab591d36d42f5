import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../core/resource.js';
import type { Json } from '../../core/wire.js';
import { diffCanonical } from '../../planner/diff.js';
import type { LiveView, UpdateContext } from '../kind.js';
import type { RefContext } from '../refs.js';
import { webhook } from './definition.js';
import type { WebhookLive } from './model.js';
import { webhookSpecSchema } from './schema.js';
import { sensitivePaths } from '../sensitive.js';

const fingerprint = (value: Json) => `fp:${createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12)}`;
const noRefs = {} as RefContext;
const SLACK = 'https://hooks.slack.com/services/T1/B1/secret-token';

function desired(spec: unknown): { res: DesiredResource<ReturnType<typeof webhookSpecSchema.parse>>; fps: Record<string, string> } {
  const parsed = webhookSpecSchema.parse(spec);
  const fps: Record<string, string> = {};
  for (const key of ['url', 'body', 'headers', 'queryParams'] as const) if (parsed[key] !== undefined) fps[key] = fingerprint(parsed[key]);
  return {
    res: { kind: 'Webhook', name: 'w', address: 'Webhook/w', labels: {}, spec: parsed, source: { file: 'w.yaml', line: 1, col: 1 } },
    fps,
  };
}

const view = (secrets: Record<string, string> = {}): LiveView => ({
  tokens: { token: () => '', partToken: () => '' },
  parts: undefined,
  expected: null,
  secrets,
  fingerprint,
});
const messages = (input: unknown) => {
  const r = webhookSpecSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('webhook spec schema', () => {
  it('marks the URL, body, headers and query parameters sensitive', () => {
    expect(sensitivePaths(webhookSpecSchema).map((p) => p.join('.'))).toEqual(['url', 'body', 'headers', 'queryParams']);
  });

  it("applies the service's rules, without echoing the URL", () => {
    expect(messages({ service: 'slack', name: 'ops', url: SLACK })).toEqual([]);
    expect(messages({ service: 'slack', name: 'ops', url: 'https://example.com/secret-token' })).toEqual([
      "url: a slack webhook's URL is on a host ending in slack.com",
    ]);
    expect(messages({ service: 'slack', name: 'ops', url: SLACK, headers: { A: 'b' } })).toEqual([
      'headers: headers is not supported for the slack webhook service',
    ]);
    expect(messages({ service: 'generic', name: 'ops', url: 'ftp://example.com/secret-token' })).toEqual([
      'url: the URL must be an http:// or https:// URL',
    ]);
    // Without a scheme: said once, not once per check (issue 40.5).
    expect(messages({ service: 'generic', name: 'ops', url: 'example.com/secret-token' })).toEqual([
      'url: the URL must be an http:// or https:// URL',
    ]);
    expect(messages({ service: 'generic', name: 'ops', url: 'https://example.com', headers: { '1x': 'v' } })[0]).toContain(
      'cannot start with a digit',
    );
    expect(messages({ service: 'generic', name: 'ops', url: 'https://example.com', queryParams: { k: 'a\nb' } })[0]).toContain(
      'control characters',
    );
    expect(messages({ service: 'generic', name: ' ops ', url: 'https://example.com' })).toEqual([]);
    expect(webhookSpecSchema.parse({ service: 'generic', name: ' ops ', url: 'https://example.com' }).name).toBe('ops');
  });
});

describe('webhook canonical forms', () => {
  const generic = {
    service: 'generic',
    name: 'ops',
    url: 'https://example.com/hook?token=abc',
    description: 'On call',
    body: '{"text":"{{title}}"}',
    headers: { Authorization: 'Bearer s3cret' },
  };

  it('compare equal once stored: URL and body by the fingerprint of the live value, headers by what was last sent', () => {
    const { res, fps } = desired(generic);
    const want = webhook.canonicalDesired(res, noRefs, fps);
    if (!want.ok) throw new Error('unresolved');
    const live: WebhookLive = { id: 'w1', name: 'ops', service: 'generic', url: generic.url, description: 'On call', body: generic.body };
    expect(diffCanonical(webhook.canonicalLive(live, view(fps)), want.value)).toEqual([]);
    expect(JSON.stringify(want.value)).not.toContain('s3cret');
    expect(JSON.stringify(want.value)).not.toContain('token=abc');
  });

  it('see a URL changed by hand, and show it masked', () => {
    const { res, fps } = desired(generic);
    const want = webhook.canonicalDesired(res, noRefs, fps);
    if (!want.ok) throw new Error('unresolved');
    const live: WebhookLive = {
      id: 'w1',
      name: 'ops',
      service: 'generic',
      url: 'https://example.com/other?token=zzz',
      description: 'On call',
      body: generic.body,
    };
    expect(diffCanonical(webhook.canonicalLive(live, view(fps)), want.value)).toEqual([
      { path: 'url', sensitive: true, before: '(sensitive)', after: '(sensitive)' },
    ]);
  });

  it('send headers again when they changed or the destination changed, and clear them with {} when the manifest drops them', () => {
    const { res, fps } = desired(generic);
    const live: WebhookLive = { id: 'w1', name: 'ops', service: 'generic', url: generic.url };
    const ctx = (changedPaths: string[]): UpdateContext => ({ refs: noRefs, fingerprints: fps, changedPaths, parts: undefined });
    const plan = (paths: string[]) => webhook.update(res, live, ctx(paths));
    expect(plan(['description'])).toEqual({
      payload: { name: 'ops', service: 'generic', url: { $sensitive: fps.url }, description: 'On call', body: { $sensitive: fps.body } },
    });
    expect(plan(['headers'])).toMatchObject({ payload: { headers: { $sensitive: fps.headers } } });
    expect(plan(['url'])).toMatchObject({ payload: { headers: { $sensitive: fps.headers }, queryParams: {} } });
    const slack = desired({ service: 'slack', name: 'ops', url: SLACK });
    expect(webhook.update(slack.res, live, { ...ctx(['service', 'url']), fingerprints: slack.fps })).toEqual({
      payload: { name: 'ops', service: 'slack', url: { $sensitive: slack.fps.url } },
    });
    const dropped = desired({ ...generic, headers: undefined });
    expect(webhook.update(dropped.res, live, { ...ctx(['headers']), fingerprints: dropped.fps })).toMatchObject({
      payload: { headers: {} },
    });
  });

  it('compare an incident.io body, which is never returned, by what was last sent', () => {
    const { res, fps } = desired({
      service: 'incidentio',
      name: 'inc',
      url: 'https://api.incident.io/v2/alert_events/http/abc',
      body: '{"title":"{{title}}"}',
    });
    const want = webhook.canonicalDesired(res, noRefs, fps);
    if (!want.ok) throw new Error('unresolved');
    const live: WebhookLive = { id: 'w2', name: 'inc', service: 'incidentio', url: 'https://api.incident.io/v2/alert_events/http/abc' };
    expect(diffCanonical(webhook.canonicalLive(live, view(fps)), want.value)).toEqual([]);
    expect(diffCanonical(webhook.canonicalLive(live, view({})), want.value).map((c) => c.path)).toEqual(['body']);
  });

  it('are adopted by service and name, and name their secrets for the scrubber', () => {
    const { res } = desired(generic);
    expect(webhook.desiredKey(res, noRefs)).toBe('generic|ops');
    expect(webhook.liveKey({ id: 'w1', name: 'ops', service: 'generic' })).toBe('generic|ops');
    expect(webhook.bodyKey?.({ name: 'ops', service: 'generic' })).toBe('generic|ops');
    expect(webhook.liveSecrets?.({ id: 'w1', name: 'ops', service: 'generic', url: generic.url, body: generic.body })).toEqual([
      generic.url,
      generic.body,
    ]);
  });
});
