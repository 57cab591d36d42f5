import { describe, expect, it } from 'vitest';
import type { LiveObject } from '../core/live.js';
import type { AnyKind } from '../kinds/registry.js';
import { exportLive } from './exporter.js';
import type { ExportInput } from './export-input.js';

const URL = 'https://hooks.example.com/T/secret-token-1';
const live: Record<string, LiveObject[]> = {
  Source: [
    { id: 's1', name: 'Traces', kind: 'trace' },
    { id: 's2', name: 'Logs', kind: 'log' },
    { id: 's3', name: 'Logs', kind: 'log' },
  ] as unknown as LiveObject[],
  Webhook: [{ id: 'w1', name: 'Ops', service: 'generic', url: URL }] as unknown as LiveObject[],
  Dashboard: [
    {
      id: 'd1',
      name: 'Checkout',
      tags: [],
      filters: [],
      savedFilterValues: [],
      tiles: [
        {
          id: 't1',
          name: 'p99',
          x: 0,
          y: 0,
          w: 12,
          h: 4,
          config: {
            displayType: 'line',
            sourceId: 's1',
            select: [{ aggFn: 'count', valueExpression: '', where: '', whereLanguage: 'lucene' }],
            fillNulls: true,
            asRatio: false,
          },
        },
        {
          id: 't2',
          name: 'p99',
          x: 12,
          y: 0,
          w: 12,
          h: 4,
          config: { displayType: 'number', sourceId: 's2', select: [{ aggFn: 'count', where: '' }] },
        },
      ],
    },
  ] as unknown as LiveObject[],
  Alert: [
    {
      id: 'a1',
      source: 'tile',
      dashboardId: 'd1',
      tileId: 't2',
      name: 'High',
      interval: '5m',
      threshold: 1,
      thresholdType: 'above',
      scheduleOffsetMinutes: 0,
      channels: [{ type: 'webhook', webhookId: 'w1' }],
    },
  ] as unknown as LiveObject[],
};
const input = (extra: Partial<ExportInput> = {}): ExportInput => ({ objects: (k: AnyKind) => live[k] ?? [], owned: [], ...extra });
const specOf = (result: ReturnType<typeof exportLive>, address: string) => result.manifests.find((m) => m.address === address)?.spec;

describe('exporter', () => {
  it('refers by the exported names and tile keys, leaves out server defaults, never writes a secret', () => {
    const result = exportLive(input());
    expect(specOf(result, 'Dashboard/checkout')).toMatchObject({
      tiles: [
        { name: 'p99', config: { source: 'traces', displayType: 'line', select: [{ aggFn: 'count' }] } },
        { key: 'p99-2', name: 'p99', config: { source: expect.stringMatching(/^logs-[0-9a-f]{6}$/) as unknown, displayType: 'number' } },
      ],
    });
    expect(specOf(result, 'Dashboard/checkout')?.tags).toBeUndefined();
    expect(specOf(result, 'Alert/high')).toEqual({
      dashboard: 'checkout',
      tile: 'p99-2',
      name: 'High',
      interval: '5m',
      threshold: 1,
      thresholdType: 'above',
      channel: { type: 'webhook', webhook: 'ops' },
    });
    expect(specOf(result, 'Webhook/ops')).toEqual({ service: 'generic', name: 'Ops', url: '${env:OBSYNC_EXPORT_WEBHOOK_OPS_URL}' });
    expect(result.variables).toEqual([{ name: 'OBSYNC_EXPORT_WEBHOOK_OPS_URL', address: 'Webhook/ops', path: 'url', value: URL }]);
    expect(result.envExample).toContain('OBSYNC_EXPORT_WEBHOOK_OPS_URL=\n');
    for (const text of [...result.manifests.map((m) => m.text), result.envExample]) expect(text).not.toContain('secret-token');
    expect(result.manifests.find((m) => m.address === 'Dashboard/checkout')?.text).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/obsync\.schema\.json\n/,
    );
  });

  it(
    'refers to what is not exported by its display name when unique on the target, else by {id}; an alert names a dashboard only ' +
      'by manifest',
    () => {
      const result = exportLive(input({ kinds: new Set(['Dashboard', 'Alert']) }));
      expect(result.manifests.map((m) => m.address)).toEqual(['Dashboard/checkout', 'Alert/high']);
      expect(specOf(result, 'Dashboard/checkout')).toMatchObject({
        tiles: [{ config: { source: 'Traces' } }, { config: { source: { id: 's2' } } }],
      });
      expect(specOf(result, 'Alert/high')).toMatchObject({ channel: { webhook: 'Ops' } });
      const alertOnly = exportLive(input({ kinds: new Set(['Alert']) }));
      expect(specOf(alertOnly, 'Alert/high')).toMatchObject({ dashboard: { id: 'd1' }, tile: { id: 't2' } });
      const matched = exportLive(input({ match: /^Check/ }));
      expect(matched.manifests.map((m) => m.address)).toEqual(['Dashboard/checkout']);
    },
  );

  it('is deterministic, and names clashing objects apart (shared natural keys reported)', () => {
    const a = exportLive(input());
    const b = exportLive(input());
    expect(b.manifests.map((m) => m.text)).toEqual(a.manifests.map((m) => m.text));
    const logs = a.manifests.filter((m) => m.kind === 'Source' && m.displayName === 'Logs').map((m) => m.name);
    expect(logs).toHaveLength(2);
    expect(logs.every((n) => /^logs-[0-9a-f]{6}$/.test(n))).toBe(true);
    expect(a.sharedKeys.sort()).toEqual(logs.map((n) => `Source/${n}`).sort());
  });

  it("names an alert without its threshold or the target's name, and says how to move an owned one to that name", () => {
    const titled = (name: string): Record<string, LiveObject[]> => ({
      ...live,
      Alert: [{ ...(live.Alert?.[0] as object), name }] as unknown as LiveObject[],
    });
    const objects = (name: string) => (k: AnyKind) => titled(name)[k] ?? [];
    const fresh = exportLive(input({ objects: objects('Checkout p99 above 900 ms (staging)'), target: 'staging' }));
    expect(fresh.manifests.find((m) => m.kind === 'Alert')?.name).toBe('checkout-p99');
    expect(fresh.renames).toEqual([]);
    const owned = exportLive(
      input({
        objects: objects('Checkout p99 above 500 ms (staging)'),
        target: 'staging',
        owned: [{ kind: 'Alert', name: 'checkout-p99-above-900-ms-staging', id: 'a1', status: 'owned', naturalKey: 'k', updatedAt: '' }],
      }),
    );
    const alert = owned.manifests.find((m) => m.kind === 'Alert');
    expect(alert?.name).toBe('checkout-p99-above-900-ms-staging');
    expect(owned.renames).toEqual([{ address: 'Alert/checkout-p99-above-900-ms-staging', to: 'checkout-p99' }]);
    expect(alert?.text).toContain(
      '# Note: obsync owns this alert as checkout-p99-above-900-ms-staging; its stable name is checkout-p99 (no threshold or ' +
        'environment in it). To rename it, set metadata.name: checkout-p99 and metadata.previousNames: [checkout-p99-above-900-ms-staging]',
    );
  });
});
