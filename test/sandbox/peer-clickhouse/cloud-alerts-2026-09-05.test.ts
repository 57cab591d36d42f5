/**
 * The 2026-09-05 live Cloud spec's ClickStack alert deltas (reference/hosted-api.md §0.1; read from
 * api-evangelist/clickhouse openapi/clickhouse-cloud-api-openapi.json @ 3d2d9334): `interval: 30s`
 * behind a team feature flag (the sandbox's option `hostedTeamFlags`; the refusal's wording is the
 * sandbox's, the spec gives none) and the `channels` array (1–10, duplicates rejected) beside
 * `channel`. No client tests exist for them yet, so these hold the sandbox to the spec.
 */
import { describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { cloud, errorEnvelope, sandbox } from './support.js';

type Row = Record<string, unknown> & { id: string };

async function setup(h: SandboxHandle) {
  const api = cloud(h);
  const base = `${api.service}/clickstack`;
  const [search] = (await api.result('GET', `${base}/saved-searches`)) as Row[];
  const hooks = (await api.result('GET', `${base}/webhooks`)) as Row[];
  const hook = (i: number) => ({ type: 'webhook', webhookId: hooks[i]?.id ?? '' });
  const alert = (extra: Record<string, unknown>) => ({
    source: 'saved_search',
    savedSearchId: search?.id,
    threshold: 1,
    thresholdType: 'above',
    interval: '5m',
    channel: hook(0),
    ...extra,
  });
  const alerts = async () => (await api.result('GET', `${base}/alerts`)) as Row[];
  return { api, base, alert, hook, hookCount: hooks.length, alerts };
}

describe('ClickStack alerts: interval 30s needs the team feature flag', () => {
  it('is refused with a message that says why and what to do while the flag is off; nothing is saved or changed', async () => {
    const { api, base, alert, alerts } = await setup(await sandbox());
    const before = await alerts();
    const refused = await api.call('POST', `${base}/alerts`, alert({ interval: '30s' }));
    expect(refused.status).toBe(400);
    expect(errorEnvelope.parse(refused.body).error).toBe(
      'BAD_REQUEST: The 30s alert interval needs a feature flag this service does not have: use 1m or longer, or ask ClickHouse ' +
        'support to enable 30s alerts',
    );
    expect(await alerts()).toEqual(before);

    const created = (await api.result('POST', `${base}/alerts`, alert({}))) as Row;
    expect((await api.call('PUT', `${base}/alerts/${created.id}`, alert({ interval: '30s' }))).status).toBe(400);
    expect(((await api.result('GET', `${base}/alerts/${created.id}`)) as Row).interval).toBe('5m');
  });

  it('is taken with the flag on; an offset must stay below the half minute', async () => {
    const { api, base, alert } = await setup(await sandbox({ hostedTeamFlags: ['alertInterval30s'] }));
    const created = (await api.result('POST', `${base}/alerts`, alert({ interval: '30s' }))) as Row;
    expect(created.interval).toBe('30s');
    expect(((await api.result('GET', `${base}/alerts/${created.id}`)) as Row).interval).toBe('30s');
    const offset = await api.call('POST', `${base}/alerts`, alert({ interval: '30s', scheduleOffsetMinutes: 1 }));
    expect(offset.status).toBe(400);
    expect(errorEnvelope.parse(offset.body).error).toMatch(/scheduleOffsetMinutes must be less than the alert interval/);
  });

  it('is not an interval of the self-hosted API, whatever the hosted flags (hyperdx utils/zod.ts @ 011f0b3a)', async () => {
    const h = await sandbox({ hostedTeamFlags: ['alertInterval30s'] });
    const self = await fetch(`${h.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.credentials.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        source: 'saved_search',
        savedSearchId: 'x',
        threshold: 1,
        thresholdType: 'above',
        interval: '30s',
        channels: [],
      }),
    });
    expect(self.status).toBe(400);
    // Its own enum refuses it: the message names the interval first (the rest of the body is incomplete on purpose).
    expect(((await self.json()) as { message: string }).message).toMatch(
      /^Body validation failed: interval: Invalid enum value\. Expected '1m' \| .*'1d', received '30s'/,
    );
  });
});

describe('ClickStack alerts: channels beside channel', () => {
  it('answers several channels with channel as the first; refuses duplicates and more than ten', async () => {
    const { api, base, alert, hook, hookCount } = await setup(await sandbox());
    expect(hookCount).toBeGreaterThanOrEqual(2);
    const two = (await api.result('POST', `${base}/alerts`, alert({ channel: undefined, channels: [hook(0), hook(1)] }))) as Row;
    expect(two.channels).toEqual([hook(0), hook(1)]);
    expect(two.channel).toEqual(hook(0));

    const duplicate = await api.call('POST', `${base}/alerts`, alert({ channel: undefined, channels: [hook(0), hook(0)] }));
    expect(duplicate.status).toBe(400);
    expect(errorEnvelope.parse(duplicate.body).error).toMatch(/Duplicate notification channels are not allowed/);
    const eleven = await api.call(
      'POST',
      `${base}/alerts`,
      alert({ channel: undefined, channels: Array.from({ length: 11 }, (_, i) => hook(i % 2)) }),
    );
    expect(eleven.status).toBe(400);
    expect(errorEnvelope.parse(eleven.body).error).toMatch(/channels/);
  });
});
