import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from './seed.js';
import { demoDomain, failure, idOf, value } from './test-helpers.js';

const generic = {
  name: 'hook',
  service: 'generic',
  url: 'https://example.com/x',
  headers: { Authorization: 'Bearer s3cret' },
  queryParams: { token: 'q' },
  body: '{}',
};

describe('webhooks', () => {
  it('stores headers/queryParams but never returns them', () => {
    const d = demoDomain();
    const created = value(d.createWebhook(generic));
    expect(created).not.toHaveProperty('headers');
    expect(created).not.toHaveProperty('queryParams');
    expect(created.body).toBe('{}');
    expect(JSON.stringify(value(d.listWebhooks({})))).not.toContain('s3cret');
    const stored = (d.snapshot().state as { webhooks: { id: string; headers?: unknown }[] }).webhooks.find((w) => w.id === created.id);
    expect(stored?.headers).toEqual({ Authorization: 'Bearer s3cret' });
  });

  it('keeps write-only fields on same-destination update and clears them when the url changes', () => {
    const d = demoDomain();
    const id = idOf(value(d.createWebhook(generic)));
    const { headers: _h, queryParams: _q, ...rest } = generic;
    value(d.updateWebhook(id, rest));
    const stored = () => (d.snapshot().state as { webhooks: { id: string; headers?: unknown }[] }).webhooks.find((w) => w.id === id);
    expect(stored()?.headers).toEqual(generic.headers);
    value(d.updateWebhook(id, { ...rest, url: 'https://example.com/y' }));
    expect(stored()?.headers).toBeUndefined();
  });

  it('refuses private URLs, slack hosts and duplicates with the server messages, storing nothing', () => {
    const d = demoDomain();
    const before = JSON.stringify(d.snapshot());
    expect(failure(d.createWebhook({ ...generic, url: 'http://10.0.0.1/x' })).message).toBe(
      'Webhook URL resolves to a private or reserved address.',
    );
    expect(failure(d.createWebhook({ ...generic, url: 'not-a-url' })).message).toBe('Body validation failed: url: Invalid url');
    expect(failure(d.createWebhook({ name: 's', service: 'slack', url: 'https://example.com/x' })).message).toContain(
      "does not have hostname that ends in 'slack.com'",
    );
    expect(
      failure(d.createWebhook({ name: 's', service: 'slack', url: 'https://hooks.slack.com/x', headers: { a: 'b' } })).message,
    ).toContain('not supported');
    expect(failure(d.createWebhook({ name: 'ops-slack', service: 'slack', url: 'https://hooks.slack.com/x' })).message).toBe(
      'A webhook with this service and name already exists',
    );
    expect(failure(d.createWebhook({ ...generic, headers: { '1bad': 'x' } })).status).toBe(400);
    expect(JSON.stringify(d.snapshot())).toBe(before);
  });

  it('refuses to delete a webhook an alert references (409)', () => {
    const d = demoDomain();
    value(
      d.createAlert({
        source: 'saved_search',
        savedSearchId: DEMO_IDS.errors,
        interval: '1m',
        threshold: 1,
        thresholdType: 'above',
        channel: { type: 'webhook', webhookId: DEMO_IDS.opsSlack },
      }),
    );
    expect(failure(d.deleteWebhook(DEMO_IDS.opsSlack))).toEqual({
      status: 409,
      message: 'Cannot delete webhook: 1 alert(s) still reference it. Reassign or remove those alerts first.',
    });
    expect(value(d.deleteWebhook(DEMO_IDS.opsWebhook))).toEqual({});
    expect(failure(d.deleteWebhook(DEMO_IDS.opsWebhook))).toEqual({ status: 404, message: 'Webhook not found' });
  });
});
