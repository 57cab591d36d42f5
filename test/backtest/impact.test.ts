/**
 * Issue 26, impact: the plan predicts what a change touches beyond its own object, from the live
 * state alone — what reads a changed source (dashboards, saved searches, linked sources, owned or
 * not), the alerts that notify a webhook whose destination changes — in the plan's steps and its
 * text output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionOf } from '../../src/kinds/registry.js';
import { renderPlansText } from '../../src/render/plan-text.js';
import { TrustHarness } from '../support/reconcile.js';

const doc = (kind: string, name: string, spec: string) =>
  `apiVersion: obsync/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${spec}\n---\n`;

const source = (table: string) =>
  doc(
    'Source',
    'app-logs',
    `{kind: log, name: App logs, connection: Default, from: {databaseName: default, tableName: ${table}}, timestampValueExpression: ` +
      `TimestampTime, defaultTableSelectExpression: Body}`,
  );
const board = doc(
  'Dashboard',
  'app',
  '{name: App, tiles: [{key: rps, name: Requests, x: 0, y: 0, w: 6, h: 4, config: {displayType: line, source: app-logs, select: [{aggFn: ' +
    'count}]}}]}',
);
const search = doc('SavedSearch', 'app-errors', "{name: App errors, source: app-logs, where: 'level:error'}");
const hook = (url: string, description = 'Pages the on-call') =>
  doc('Webhook', 'pager', `{service: generic, name: Pager, url: '${url}', description: '${description}'}`);
const alert = doc(
  'Alert',
  'app-errors-high',
  '{savedSearch: app-errors, threshold: 10, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: pager}, name: App ' +
    'errors high}',
);

let h: TrustHarness;

beforeAll(async () => {
  h = await TrustHarness.start();
  h.manifests({ 'all.yaml': source('app_logs') + board + search + hook('https://hooks.example.com/pager-1a2b') + alert });
  expect((await h.run()).apply?.summary.failed).toBe(0);
});
afterAll(() => h.close());

describe('the impact of a change', () => {
  it('lists what reads a changed source, owned or not', async () => {
    const logs = (await collectionOf(h.port, 'Source').list()).find((s) => s.name === 'App logs');
    if (!logs) throw new Error('setup');
    // Its name carries an escape sequence: the plan shows it, a terminal does not obey it.
    const handMade = await collectionOf(h.port, 'SavedSearch').create({ name: 'Hand search\u001b[2J', sourceId: logs.id, where: 'x:1' });
    h.manifests({ 'all.yaml': source('app_logs_v2') + board + search + hook('https://hooks.example.com/pager-1a2b') + alert });
    const report = await h.run({ mode: 'plan' });
    const step = report.plan.steps.find((s) => s.address === 'Source/app-logs');
    expect(step?.action).toBe('update');
    expect(step?.impact).toEqual([
      {
        kind: 'readers',
        what: 'changed',
        objects: expect.arrayContaining([
          expect.objectContaining({ kind: 'Dashboard', address: 'Dashboard/app', owned: true }),
          expect.objectContaining({ kind: 'SavedSearch', address: 'SavedSearch/app-errors', owned: true }),
          expect.objectContaining({ kind: 'SavedSearch', id: handMade.id, name: 'Hand search\u001b[2J', owned: false }),
        ]) as unknown,
      },
    ]);
    expect(step?.impact?.[0]?.objects).toHaveLength(3);
    const text = renderPlansText([report.plan], { color: false });
    expect(text).toContain('! changed; read by 3 object(s):');
    expect(text.replace(/\n {10}/g, ' ')).toContain(`- SavedSearch 'Hand search\\u001b[2J' (id ${handMade.id}, NOT owned by obsync)`);
    expect(text).not.toContain('\u001b');
    await collectionOf(h.port, 'SavedSearch').delete(handMade.id);
  });

  it('lists the alerts that notify a webhook whose destination changes, and nothing for a description', async () => {
    h.manifests({ 'all.yaml': source('app_logs') + board + search + hook('https://hooks.example.com/pager-9z8y') + alert });
    const moved = await h.run({ mode: 'plan' });
    const step = moved.plan.steps.find((s) => s.address === 'Webhook/pager');
    expect(step?.impact).toEqual([
      {
        kind: 'webhook-users',
        what: 'destination changed: these alerts notify through it',
        objects: [expect.objectContaining({ address: 'Alert/app-errors-high', owned: true })],
      },
    ]);
    // The secret URL is not in the impact, nor in the text.
    expect(renderPlansText([moved.plan], { color: false })).not.toContain('pager-9z8y');

    h.manifests({
      'all.yaml': source('app_logs') + board + search + hook('https://hooks.example.com/pager-1a2b', 'Pages someone') + alert,
    });
    const described = await h.run({ mode: 'plan' });
    const same = described.plan.steps.find((s) => s.address === 'Webhook/pager');
    expect(same?.action).toBe('update');
    expect(same?.impact).toBeUndefined();
  });

  it('says why an alert cannot be backtested when its source is gone: the plan re-creates it, with no history yet', async () => {
    const logs = (await collectionOf(h.port, 'Source').list()).find((x) => x.name === 'App logs');
    if (!logs) throw new Error('setup');
    await collectionOf(h.port, 'Source').delete(logs.id);
    const moved = alert.replace('threshold: 10', 'threshold: 12');
    h.manifests({ 'all.yaml': source('app_logs') + board + search + hook('https://hooks.example.com/pager-1a2b') + moved });
    const report = await h.run({ mode: 'plan', backtest: { windowMs: 86_400_000, window: '1d', budget: 20, perAlert: 10 } });
    expect(report.plan.steps.find((s) => s.address === 'Source/app-logs')?.action).toBe('create');
    const bt = report.plan.steps.find((s) => s.address === 'Alert/app-errors-high')?.backtest;
    expect(bt).toMatchObject({
      status: 'unavailable',
      reason: 'its source Source/app-logs is created by this plan: it has no history yet',
    });
    expect(bt?.before).toBeUndefined();
  });
});
