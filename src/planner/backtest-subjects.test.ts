import { describe, expect, it } from 'vitest';
import { IdMap } from '../core/id-map.js';
import type { LiveObject, LiveState } from '../core/live.js';
import type { AnyKind, PlanStep } from '../core/plan.js';
import type { JsonObject } from '../core/wire.js';
import { backtestSubjects } from './backtest-subjects.js';
import { PlannedView } from './planned-view.js';

const LOGS = '5eedc0de0000000000000003';
const chart = (where: string): JsonObject => ({
  displayType: 'line',
  sourceId: LOGS,
  select: [{ aggFn: 'count', where: 'SeverityText:error', whereLanguage: 'lucene' }],
  groupBy: 'ServiceName',
  where,
  whereLanguage: 'lucene',
});
const inline = (threshold: number, where: string): JsonObject => ({
  source: 'inline',
  name: 'Checkout errors',
  interval: '5m',
  threshold,
  thresholdType: 'above',
  chartConfig: chart(where),
});

function liveState(objects: Partial<Record<AnyKind, LiveObject[]>>): LiveState {
  return { objects: (kind) => objects[kind] ?? [], versionOf: () => undefined };
}

function step(action: 'create' | 'update', payload: JsonObject, id?: string): PlanStep {
  return {
    address: 'Alert/checkout-errors',
    kind: 'Alert',
    name: 'checkout-errors',
    action,
    reason: action === 'create' ? 'missing' : 'spec-changed',
    changes: [],
    payload,
    dependsOn: [],
    ...(id ? { id } : {}),
  };
}

describe('backtest subjects of an inline alert (issue 49)', () => {
  it('evaluate its own chart as a tile, its chart-level where joined to the series, before and after an update', () => {
    const live = { id: 'a1', ...inline(10, 'ServiceName:checkout') };
    const view = new PlannedView(
      [step('update', inline(5, 'ServiceName:cart'), 'a1')],
      liveState({ Alert: [live], Source: [{ id: LOGS }] }),
      new IdMap(),
    );
    const [subject] = backtestSubjects(view);
    expect(subject?.after).toMatchObject({
      ok: true,
      condition: { threshold: 5 },
      query: { groupBy: ['ServiceName'], series: [{ sourceId: LOGS, where: '(ServiceName:cart) AND (SeverityText:error)' }] },
    });
    expect(subject?.before).toMatchObject({
      ok: true,
      condition: { threshold: 10 },
      query: { series: [{ where: '(ServiceName:checkout) AND (SeverityText:error)' }] },
    });
  });

  it('say why when the chart cannot be read: no chartConfig, a source the plan creates', () => {
    const { chartConfig: _c, ...bare } = inline(5, '');
    const created = { ...inline(5, ''), chartConfig: { ...chart(''), sourceId: { $ref: 'Source/new' } } };
    const view = new PlannedView([step('create', bare)], liveState({ Source: [{ id: LOGS }] }), new IdMap());
    expect(backtestSubjects(view)[0]?.after).toEqual({ ok: false, reason: 'the service answered no chartConfig for this inline alert' });
    const sources = new PlannedView(
      [step('create', created), { ...step('create', {}), address: 'Source/new', kind: 'Source', name: 'new' }],
      liveState({ Source: [{ id: LOGS }] }),
      new IdMap(),
    );
    expect(backtestSubjects(sources)[0]?.after).toMatchObject({ ok: false, reason: expect.stringContaining('is created by this plan') });
  });
});
