/**
 * Issue 27 item 5: a display name is not an identity. Changing the display name of an owned
 * object of every kind (spec.name) updates that object in place — the same id, nothing created or
 * deleted, the objects that refer to it (an alert on a saved search, tiles reading a source, a
 * source on a connection, an alert's webhook) untouched — and the next plan is empty. Both API
 * variants, over the sandbox's HTTP server (pipes are served there only).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/core/plan.js';
import type { Variant } from '../../src/core/ports.js';
import { KINDS, collectionOf } from '../../src/kinds/registry.js';
import { World } from '../support/world.js';

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close();
});

/** Every kind the variant manages, each referring to the next, with display names ending in `suffix`. */
function manifests(variant: Variant, suffix: string): Record<string, string> {
  const doc = (kind: string, name: string, spec: string) =>
    `apiVersion: obsync/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
  const connection = variant === 'self-hosted' ? 'conn' : '{id: 5eed00000000000000000002}';
  const docs = [
    doc('Webhook', 'hook', `{service: generic, name: "Hook${suffix}", url: "https://example.com/hook-4c1d"}`),
    doc(
      'Source',
      'logs',
      `{kind: log, name: "Logs${suffix}", connection: ${connection}, from: {databaseName: default, tableName: rename_logs}, ` +
        `timestampValueExpression: TimestampTime, defaultTableSelectExpression: Body}`,
    ),
    doc('SavedSearch', 'errors', `{name: "Errors${suffix}", source: logs, where: 'level:error'}`),
    doc(
      'Alert',
      'on-errors',
      `{savedSearch: errors, threshold: 1, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: hook}, name: "On ` +
        `errors${suffix}"}`,
    ),
    doc(
      'Dashboard',
      'board',
      `{name: "Board${suffix}", tiles: [{key: lines, name: Lines, x: 0, y: 0, w: 12, h: 4, config: {displayType: line, source: logs, ` +
        `select: [{aggFn: count}]}}]}`,
    ),
    doc(
      'Alert',
      'on-lines',
      `{dashboard: board, tile: lines, threshold: 5, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: hook}, name: ` +
        `"On lines${suffix}"}`,
    ),
  ];
  if (variant === 'self-hosted')
    docs.push(doc('Connection', 'conn', `{name: "ClickHouse${suffix}", host: 'http://ch-rename:8123', username: reader}`));
  // A pipe found by its name only: once owned, a new name renames it.
  else docs.push(doc('Pipe', 'clicks', `{name: "clicks-kinesis${suffix === '' ? '' : '-renamed'}"}`));
  return { 'all.yaml': docs.join('---\n') };
}

const writes = (plan: Plan) => plan.steps.filter((s) => s.action !== 'noop');

describe.each(['self-hosted', 'hosted'] as const)('display-name changes keep the object (%s)', (variant) => {
  it('updates every kind in place: same ids, nothing created or deleted, references untouched, the next plan empty', async () => {
    const w = await World.overHttp(variant);
    worlds.push(w);
    await w.apply(manifests(variant, ''));
    const ids = new Map(w.inventory.entries().map((e) => [`${e.kind}/${e.name}`, e.id]));
    // The access kinds are named by email and role name: test/engine/access.test.ts. An SSH key resource's
    // fields are all fixed once made (a new name is a new key): src/kinds/pipe-ssh-key, test/e2e/pipe-ssh-keys.test.ts.
    const named = KINDS.filter((k) => !['Role', 'TeamMember', 'TeamSettings', 'PipeSshKey'].includes(k));
    const managed = variant === 'hosted' ? named.filter((k) => k !== 'Connection') : named.filter((k) => k !== 'Pipe');
    expect(new Set([...ids.keys()].map((a) => a.split('/')[0]))).toEqual(new Set(managed));
    const counts = async (): Promise<Record<string, number>> => {
      const out: Record<string, number> = {};
      for (const k of managed) out[k] = (await collectionOf(w.port, k).list()).length;
      return out;
    };
    const countsBefore = await counts();

    const plan = await w.plan(manifests(variant, ' (renamed)'), { prune: true });
    expect(plan.diagnostics).toEqual([]);
    expect(
      writes(plan)
        .map((s) => `${s.action} ${s.address} ${s.id ?? ''}`)
        .sort(),
    ).toEqual([...ids].map(([address, id]) => `update ${address} ${id ?? ''}`).sort());
    for (const step of writes(plan)) expect(step.changes.map((c) => c.path)).toEqual(['name']);

    const { report } = await w.apply(manifests(variant, ' (renamed)'), { prune: true });
    expect(report.summary).toMatchObject({ failed: 0, refused: 0, skipped: 0 });
    expect(new Map(w.inventory.entries().map((e) => [`${e.kind}/${e.name}`, e.id]))).toEqual(ids);
    expect(await counts()).toEqual(countsBefore);
    const hook = (await collectionOf(w.port, 'Webhook').list()).find((h) => h.id === ids.get('Webhook/hook'));
    expect(hook?.name).toBe('Hook (renamed)');
    const alert = (await collectionOf(w.port, 'Alert').list()).find((a) => a.id === ids.get('Alert/on-errors'));
    expect(alert).toMatchObject({ name: 'On errors (renamed)', savedSearchId: ids.get('SavedSearch/errors') });
    const board = (await collectionOf(w.port, 'Dashboard').list()).find((d) => d.id === ids.get('Dashboard/board'));
    expect(board?.tiles[0]?.config).toMatchObject({ sourceId: ids.get('Source/logs') });

    const next = await w.plan(manifests(variant, ' (renamed)'), { prune: true });
    expect(writes(next)).toEqual([]);
    expect(next.diagnostics).toEqual([]);
  });
});
