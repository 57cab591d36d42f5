import { describe, expect, it } from 'vitest';
import { createObservabilityDomain } from './index.js';
import { DEMO_IDS } from './seed.js';
import { demoDomain, failure, idOf, lineTile, tileAlert, value } from './test-helpers.js';

function withTile() {
  const d = demoDomain();
  const dash = value(d.createDashboard({ name: 'D', tiles: [lineTile('a')] }, 'self-hosted'));
  return { d, dashId: idOf(dash), tileId: String((dash.tiles as { id: string }[])[0]?.id) };
}

describe('alerts', () => {
  it('returns the exact shape with nulls and channel mirroring', () => {
    const { d, dashId, tileId } = withTile();
    const alert = value(d.createAlert(tileAlert(dashId, tileId)));
    expect(alert).toEqual({
      id: alert.id,
      name: null,
      message: null,
      note: null,
      threshold: 10,
      interval: '5m',
      thresholdType: 'above',
      numConsecutiveWindows: null,
      source: 'tile',
      state: 'OK',
      dashboardId: dashId,
      tileId,
      teamId: DEMO_IDS.team,
      channel: { type: 'webhook', webhookId: DEMO_IDS.opsSlack },
      channels: [{ type: 'webhook', webhookId: DEMO_IDS.opsSlack }],
      createdAt: '2026-09-01T12:00:00.000Z',
      updatedAt: '2026-09-01T12:00:00.000Z',
    });
  });

  it('validates interval, threshold types, thresholdMax, channels and lengths without changing state', () => {
    const { d, dashId, tileId } = withTile();
    const version = d.version;
    const bad = (extra: Record<string, unknown>) => failure(d.createAlert(tileAlert(dashId, tileId, extra as never)));
    expect(bad({ interval: '2m' }).message).toMatch(/^Body validation failed: interval: /);
    expect(bad({ thresholdType: 'over' }).message).toMatch(/thresholdType: /);
    expect(bad({ thresholdType: 'between' }).message).toContain(
      'thresholdMax: thresholdMax is required for between/not_between threshold types',
    );
    expect(bad({ thresholdType: 'between', thresholdMax: 5 }).message).toContain('thresholdMax must be greater than or equal to threshold');
    expect(bad({ channel: undefined }).message).toContain('Provide either "channel" or "channels"');
    expect(bad({ channels: [{ type: 'webhook', webhookId: DEMO_IDS.opsWebhook }] }).message).toContain(
      '"channel" must match the first entry of "channels"',
    );
    expect(bad({ name: '' }).message).toMatch(/name: /);
    expect(bad({ name: 'x'.repeat(513) }).message).toMatch(/name: /);
    expect(bad({ message: 'x'.repeat(4097) }).message).toMatch(/message: /);
    expect(bad({ source: undefined }).status).toBe(400);
    expect(bad({ tileId: 'nope' })).toEqual({ status: 400, message: 'Tile not found' });
    expect(bad({ dashboardId: 'nope' })).toEqual({ status: 400, message: 'Invalid dashboard ID' });
    expect(bad({ channel: { type: 'webhook', webhookId: 'dddddddddddddddddddddddd' } })).toEqual({
      status: 400,
      message: 'Webhook not found',
    });
    expect(bad({ thresholdType: 'between', thresholdMax: 10, scheduleOffsetMinutes: 5 }).message).toContain('scheduleOffsetMinutes');
    expect(d.version).toBe(version);
    expect(value(d.listAlerts({}))).toEqual([]);
  });

  it('runs reference checks before the 404 on update and keeps thresholdMax when omitted', () => {
    const { d, dashId, tileId } = withTile();
    expect(failure(d.updateAlert('eeeeeeeeeeeeeeeeeeeeeeee', tileAlert(dashId, 'nope')))).toEqual({
      status: 400,
      message: 'Tile not found',
    });
    expect(failure(d.updateAlert('eeeeeeeeeeeeeeeeeeeeeeee', tileAlert(dashId, tileId)))).toEqual({
      status: 404,
      message: 'Alert not found',
    });
    const a = value(d.createAlert(tileAlert(dashId, tileId, { thresholdType: 'between', thresholdMax: 20, name: 'n' })));
    const u = value(d.updateAlert(idOf(a), tileAlert(dashId, tileId, { thresholdType: 'above' })));
    expect(u.thresholdMax).toBe(20);
    expect(u.name).toBeNull();
  });

  it('pages with limit/offset and reports meta; rejects bad paging', () => {
    const { d, dashId, tileId } = withTile();
    for (let i = 0; i < 3; i++) value(d.createAlert(tileAlert(dashId, tileId, { threshold: i })));
    const first = d.listAlerts({ limit: '2', offset: '0' });
    const second = d.listAlerts({ limit: '2', offset: '2' });
    expect(first.ok && first.meta).toEqual({ total: 3, limit: 2, offset: 0 });
    expect(second.ok && second.meta).toEqual({ total: 3, limit: 2, offset: 2 });
    expect(value(first).map((a) => a.threshold)).toEqual([0, 1]);
    expect(value(second).map((a) => a.threshold)).toEqual([2]);
    const past = d.listAlerts({ offset: '100' });
    expect(past.ok && past.meta).toEqual({ total: 3, limit: 1000, offset: 100 });
    for (const q of [{ limit: '0' }, { limit: '5000' }, { offset: '-1' }, { limit: 'abc' }, { limit: '1.5' }]) {
      expect(failure(d.listAlerts(q)).message).toMatch(/^Query validation failed: /);
    }
  });

  it('deletes saved-search alerts with their saved search', () => {
    const d = createObservabilityDomain();
    const a = value(
      d.createAlert({
        source: 'saved_search',
        savedSearchId: DEMO_IDS.errors,
        interval: '1m',
        threshold: 1,
        thresholdType: 'above',
        channels: [{ type: 'webhook', webhookId: DEMO_IDS.opsWebhook }],
      }),
    );
    expect(a).not.toHaveProperty('groupBy');
    value(d.deleteSavedSearch(DEMO_IDS.errors));
    expect(failure(d.getAlert(idOf(a))).status).toBe(404);
  });
});

describe('alerts: the real server’s output (hyperdx utils/externalApi.ts at b52a6fa8)', () => {
  it('omits groupBy and the other source’s references instead of answering null', () => {
    const d = demoDomain();
    const alert = value(
      d.createAlert({
        source: 'saved_search',
        savedSearchId: DEMO_IDS.errors,
        interval: '5m',
        threshold: 1,
        thresholdType: 'above',
        channel: { type: 'webhook', webhookId: DEMO_IDS.opsSlack },
      }),
    );
    expect(alert).not.toHaveProperty('groupBy');
    expect(alert).not.toHaveProperty('dashboardId');
    expect(alert).not.toHaveProperty('tileId');
    expect(alert.savedSearchId).toBe(DEMO_IDS.errors);
    const grouped = value(
      d.createAlert({
        source: 'saved_search',
        savedSearchId: DEMO_IDS.errors,
        groupBy: 'ServiceName',
        interval: '5m',
        threshold: 1,
        thresholdType: 'above',
        channel: { type: 'webhook', webhookId: DEMO_IDS.opsSlack },
      }),
    );
    expect(grouped.groupBy).toBe('ServiceName');
  });

  it('keeps a sent offset when the start time is cleared, and zeroes it when a start time is set', () => {
    const { d, dashId, tileId } = withTile();
    const cleared = value(d.createAlert(tileAlert(dashId, tileId, { interval: '1h', scheduleStartAt: null, scheduleOffsetMinutes: 5 })));
    expect(cleared.scheduleOffsetMinutes).toBe(5);
    const started = value(d.createAlert(tileAlert(dashId, tileId, { interval: '1h', scheduleStartAt: '2026-09-01T00:00:00.000Z' })));
    expect(started.scheduleOffsetMinutes).toBe(0);
  });
});
