/** Shared helpers of the domain's unit tests. */
import type { DomainResult, JsonRecord, ObservabilityDomain } from './contract.js';
import { createObservabilityDomain } from './index.js';
import { text } from './json.js';
import { DEMO_IDS } from './seed.js';

export function demoDomain(): ObservabilityDomain {
  const clock = new Date('2026-09-01T12:00:00.000Z');
  return createObservabilityDomain({ now: () => clock });
}

export function value<T>(result: DomainResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.status} ${result.error.message}`);
  return result.value;
}

export function failure<T>(result: DomainResult<T>): { status: number; message: string } {
  if (result.ok) throw new Error('expected a failure');
  return { status: result.error.status, message: result.error.message };
}

export const countSelect = [{ aggFn: 'count' }];

export function lineTile(name: string, extra: JsonRecord = {}): JsonRecord {
  return { name, x: 0, y: 0, w: 6, h: 4, config: { displayType: 'line', sourceId: DEMO_IDS.logs, select: countSelect }, ...extra };
}

export function tileAlert(dashboardId: string, tileId: string, extra: JsonRecord = {}): JsonRecord {
  return {
    source: 'tile',
    dashboardId,
    tileId,
    interval: '5m',
    threshold: 10,
    thresholdType: 'above',
    channel: { type: 'webhook', webhookId: DEMO_IDS.opsSlack },
    ...extra,
  };
}

export function idOf(record: JsonRecord): string {
  return text(record.id);
}
