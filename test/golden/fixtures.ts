/**
 * The golden pictures' inputs, from the sandbox's deterministic data at a fixed clock (its domain in
 * process, no socket): a dashboard update with line, stacked-bar, number and markdown tiles and their
 * series, and a backtest of an alert's threshold lowered 300 → 100 on the real backtest engine.
 */
import type { Backtest } from '../../src/core/backtest.js';
import type { Plan, PlanStep } from '../../src/core/plan.js';
import type { DashboardPreviewInput } from '../../src/core/preview.js';
import type { JsonObject } from '../../src/core/wire.js';
import { runBacktests } from '../../src/engine/backtest.js';
import { fillPreviewData } from '../../src/engine/preview-data.js';
import { alertEvaluation } from '../../src/kinds/alert/series-query.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

export const CLOCK = new Date('2026-09-01T12:00:00.000Z');
const LOGS = DEMO_IDS.logs;

const tile = (id: string, name: string, box: [number, number, number, number], config: JsonObject): JsonObject => {
  const [x, y, w, h] = box;
  return { id, name, x, y, w, h, config };
};

const errors: JsonObject = { displayType: 'line', sourceId: LOGS, select: [{ aggFn: 'count', where: 'SeverityText:error' }] };

/** The dashboard after the update; `moved` puts its second tile elsewhere (the wrong-place test). */
export function dashboardAfter(moved?: { x: number }): JsonObject {
  return {
    name: 'Checkout service',
    tiles: [
      tile('a', 'Errors', [0, 0, 12, 5], errors),
      tile('b', 'Requests by service', [moved?.x ?? 12, 0, 12, 5], {
        displayType: 'stacked_bar',
        sourceId: LOGS,
        select: [{ aggFn: 'count', where: '' }],
        groupBy: 'ServiceName',
      }),
      tile('c', 'Error count', [0, 5, 8, 3], { displayType: 'number', sourceId: LOGS, select: [{ aggFn: 'count', where: 'level:error' }] }),
      tile('d', 'Runbook', [8, 5, 16, 3], { displayType: 'markdown', markdown: 'Page the payments on-call.' }),
    ],
  };
}

function dashboardBefore(): JsonObject {
  const after = dashboardAfter();
  const tiles = (after.tiles as JsonObject[]).map((t) =>
    t.id === 'a' ? { ...t, config: { ...errors, select: [{ aggFn: 'count', where: 'SeverityText:warn' }] } } : t,
  );
  return { ...after, tiles };
}

const port = () => inProcessPort(createObservabilityDomain({ now: () => CLOCK }));

/** The dashboard update as `plan --preview-dir` draws it, its tiles' series from the sandbox. */
export async function dashboardInput(moved?: { x: number }): Promise<DashboardPreviewInput> {
  const input: DashboardPreviewInput = {
    address: 'Dashboard/checkout',
    name: 'Checkout service',
    after: dashboardAfter(moved),
    before: dashboardBefore(),
  };
  await fillPreviewData([input], { charts: port().charts, variant: 'self-hosted', budget: 10, now: CLOCK });
  return input;
}

/** An alert on the errors tile, its threshold lowered from 300 to 100, backtested over a day of hourly windows. */
export async function backtestOfUpdate(): Promise<Backtest> {
  const alert = (threshold: number): JsonObject => ({ interval: '1h', threshold, thresholdType: 'above' });
  const step = { address: 'Alert/errors-high' } as unknown as PlanStep;
  const plan = { steps: [step] } as unknown as Plan;
  const subject = {
    label: step.address,
    after: alertEvaluation(alert(100), { kind: 'tile', config: errors }),
    before: alertEvaluation(alert(300), { kind: 'tile', config: errors }),
    attach: (b: Backtest) => void (step.backtest = b),
  };
  await runBacktests(plan, [subject], port().charts, 'self-hosted', {
    windowMs: 86_400_000,
    window: '1d',
    budget: 10,
    perAlert: 4,
    now: CLOCK,
  });
  if (!step.backtest) throw new Error('the backtest attached nothing');
  return step.backtest;
}
