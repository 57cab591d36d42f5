import { describe, expect, it } from 'vitest';
import { createObservabilityDomain } from './index.js';
import { DEMO_IDS } from './seed.js';
import { demoDomain, failure, lineTile, value } from './test-helpers.js';

describe('seed, snapshot and version', () => {
  it('seeds the fixed demo objects with the same ids on every start', () => {
    const [a, b] = [createObservabilityDomain(), createObservabilityDomain({ seed: 'demo' })];
    expect(value(a.listSources()).map((s) => [s.name, s.kind, s.connection])).toEqual([
      ['Logs', 'log', DEMO_IDS.connection],
      ['Traces', 'trace', DEMO_IDS.connection],
      ['Metrics', 'metric', DEMO_IDS.connection],
    ]);
    expect(value(a.listWebhooks({})).map((w) => [w.name, w.service, w.url])).toEqual([
      ['ops-slack', 'slack', 'https://hooks.slack.com/services/T000/B000/XXXX'],
      ['ops-webhook', 'generic', 'https://example.com/hooks/obsync'],
    ]);
    expect(value(a.getSavedSearch(DEMO_IDS.errors))).toMatchObject({ name: 'Errors', sourceId: DEMO_IDS.logs, where: 'level:error' });
    expect(a.snapshot()).toEqual(b.snapshot());
    expect(value(createObservabilityDomain({ seed: 'none' }).listSources())).toEqual([]);
    expect(failure(a.getSource('ffffffffffffffffffffffff'))).toEqual({ status: 404, message: 'Source not found' });
  });

  it('restores a snapshot exactly, including the version', () => {
    const d = demoDomain();
    value(d.createDashboard({ name: 'D', tiles: [lineTile('a')] }, 'self-hosted'));
    value(d.createWebhook({ name: 'h', service: 'generic', url: 'https://example.com/h', headers: { X: 'y' } }));
    const snap = JSON.parse(JSON.stringify(d.snapshot())) as ReturnType<typeof d.snapshot>;
    const restored = createObservabilityDomain({ snapshot: snap });
    expect(restored.snapshot()).toEqual(d.snapshot());
    expect(restored.listDashboards()).toEqual(d.listDashboards());
    expect(restored.version).toBe(d.version);
  });

  it('moves the version on each committed change only', () => {
    const d = demoDomain();
    const v0 = d.version;
    value(d.createDashboard({ name: 'D', tiles: [] }, 'self-hosted'));
    expect(d.version).toBe(v0 + 1);
    failure(d.createDashboard({ name: 'D' }, 'self-hosted'));
    value(d.listDashboards());
    expect(d.version).toBe(v0 + 1);
  });

  it('refuses a snapshot of another format', () => {
    expect(() => createObservabilityDomain({ snapshot: { format: 'other' } })).toThrow(/snapshot/);
  });
});
