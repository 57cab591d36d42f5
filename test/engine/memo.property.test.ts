/**
 * The steady-state memo (src/engine/memo.ts) changes only the cost of a plan, never the plan:
 * for random sequences of changes — manifests edited, removed and restored, drift made on the
 * service (a referenced source renamed, an object deleted, a volatile field moved, a look-alike
 * created), applies, inventory entries forgotten, narrowed selections — a plan made with the memo
 * a daemon keeps across its runs equals a plan made without any, step for step and secret for
 * secret, whether the memo found objects unchanged or took the last plan whole. The manifests are
 * rebuilt for every plan, as a daemon reloads them (or kept, as its kept loads are).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressOf, type Kind } from '../../src/core/plan.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { deepFreeze } from '../../src/core/freeze.js';
import { RunMemo } from '../../src/engine/memo.js';
import { applyPlanned, makePlan, type PlanRequest } from '../../src/engine/run.js';
import { SELECT_ALL, type Selection } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { specSchemas } from '../../src/kinds/manifest.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { documentDigest } from '../../src/manifests/document.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

type Doc = {
  apiVersion: 'obsync/v1';
  kind: Kind;
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
};

const DASHBOARDS = 3;

/** Every self-hosted kind, referring to each other and to the demo seed's objects. */
function estate(): Doc[] {
  const doc = (kind: Kind, name: string, spec: Record<string, unknown>): Doc => ({
    apiVersion: 'obsync/v1',
    kind,
    metadata: { name },
    spec,
  });
  const docs: Doc[] = [
    doc('Connection', 'c0', { name: 'conn 0', host: 'http://ch-a:8123', username: 'reader', password: 'pw-one-2c3d4e5f' }),
    doc('Webhook', 'w0', {
      service: 'generic',
      name: 'hook 0',
      url: 'https://example.com/hook-one-9a8b',
      headers: { 'X-Key-1f2e': 'value-3d4c-secret' },
    }),
    doc('Source', 's0', {
      kind: 'log',
      name: 'source 0',
      connection: 'c0',
      from: { databaseName: 'default', tableName: 'logs_0' },
      timestampValueExpression: 'TimestampTime',
      defaultTableSelectExpression: 'Body',
      traceSource: 'Traces',
    }),
    doc('SavedSearch', 'q0', { name: 'search 0', source: 's0', where: 'level:error' }),
    doc('Alert', 'qa0', {
      savedSearch: 'q0',
      threshold: 1,
      thresholdType: 'above',
      interval: '15m',
      channel: { type: 'webhook', webhook: 'w0' },
      name: 'on search 0',
    }),
  ];
  for (let i = 0; i < DASHBOARDS; i++) {
    docs.push(
      doc('Dashboard', `d${i}`, {
        name: `Dashboard ${i}`,
        tags: ['prop'],
        tiles: [
          {
            key: 't0',
            name: 'Latency',
            x: 0,
            y: 0,
            w: 12,
            h: 4,
            config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'count' }] },
          },
          {
            key: 't1',
            name: 'Lines',
            x: 12,
            y: 0,
            w: 12,
            h: 4,
            config: { displayType: 'number', source: i === 0 ? 's0' : 'Logs', select: [{ aggFn: 'count' }] },
          },
        ],
      }),
      doc('Alert', `a${i}`, {
        dashboard: `d${i}`,
        tile: 't0',
        threshold: 5,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhook: i === 0 ? 'w0' : 'ops-slack' },
        name: `alert ${i}`,
      }),
    );
  }
  return docs;
}

/**
 * As the loader makes them: fresh objects each time (or the kept one of an equal document at the same line), the digest of the document.
 */
function load(docs: readonly Doc[], kept?: Map<string, DesiredResource>, line = 1): DesiredResource[] {
  return docs.map((d) => {
    const digest = documentDigest(d);
    const found = kept?.get(`${line}:${digest}`);
    if (found) return found;
    const res: DesiredResource = {
      kind: d.kind,
      name: d.metadata.name,
      address: addressOf(d.kind, d.metadata.name),
      labels: { ...(d.metadata.labels ?? {}) },
      spec: specSchemas[d.kind].parse(structuredClone(d.spec)),
      source: { file: 'gen.yaml', line, col: 1 },
      digest,
    };
    if (!kept) return res;
    kept.set(`${line}:${digest}`, deepFreeze(res));
    return res;
  });
}

const pick = fc.nat({ max: 40 });

/** A change to the manifests: one field of one document. */
const edit = fc.record({
  what: fc.constantFrom('tag', 'tile-name', 'threshold', 'webhook-url', 'header', 'password', 'source-name', 'label', 'search-where'),
  i: pick,
  value: fc.constantFrom('one', 'two', 'three'),
});

const command = fc.oneof(
  { arbitrary: edit.map((e) => ({ type: 'edit' as const, ...e })), weight: 4 },
  { arbitrary: fc.record({ type: fc.constant('remove' as const), i: pick }), weight: 1 },
  { arbitrary: fc.constant({ type: 'restore' as const }), weight: 1 },
  {
    arbitrary: fc.record({
      type: fc.constant('drift' as const),
      what: fc.constantFrom(
        'rename-traces',
        'dashboard-tags',
        'swap-tiles',
        'delete-dashboard',
        'alert-state',
        'look-alike',
        'webhook-name',
        'source-expr',
      ),
      i: pick,
    }),
    weight: 3,
  },
  { arbitrary: fc.constant({ type: 'apply' as const }), weight: 3 },
  { arbitrary: fc.record({ type: fc.constant('forget' as const), i: pick }), weight: 1 },
  { arbitrary: fc.record({ type: fc.constant('select' as const), i: pick }), weight: 1 },
  { arbitrary: fc.constant({ type: 'nothing' as const }), weight: 2 },
  // The documents move down their file: equal manifests at other lines (a plan's errors point at them).
  { arbitrary: fc.constant({ type: 'move' as const }), weight: 1 },
);
type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

function applyEdit(docs: Doc[], e: Extract<Command, { type: 'edit' }>): void {
  const of = (kind: Kind) => docs.filter((d) => d.kind === kind);
  const nth = (kind: Kind) => of(kind)[e.i % Math.max(1, of(kind).length)];
  const d = (kind: Kind) => nth(kind)?.spec;
  if (e.what === 'tag') {
    const dash = d('Dashboard');
    if (dash) dash.tags = ['prop', e.value];
  }
  if (e.what === 'tile-name') {
    const tiles = d('Dashboard')?.tiles as { name: string }[] | undefined;
    if (tiles?.[1]) tiles[1].name = `Lines ${e.value}`;
  }
  if (e.what === 'threshold') {
    const a = d('Alert');
    if (a) a.threshold = e.value.length;
  }
  if (e.what === 'webhook-url') {
    const w = d('Webhook');
    if (w) w.url = `https://example.com/hook-${e.value}-9a8b`;
  }
  if (e.what === 'header') {
    const w = d('Webhook');
    if (w) w.headers = { 'X-Key-1f2e': `value-${e.value}-secret` };
  }
  if (e.what === 'password') {
    const c = d('Connection');
    if (c) c.password = `pw-${e.value}-2c3d4e5f`;
  }
  if (e.what === 'source-name') {
    const s = d('Source');
    if (s) s.name = `source ${e.value}`;
  }
  if (e.what === 'search-where') {
    const q = d('SavedSearch');
    if (q) q.where = `level:${e.value}`;
  }
  if (e.what === 'label') {
    const any = docs[e.i % docs.length];
    if (any) any.metadata.labels = { team: e.value };
  }
}

describe('the steady-state memo', () => {
  it('never changes a plan: memoised and un-memoised plans are equal over random sequences of changes (property)', async () => {
    let reusedInAll = 0;
    let plansTaken = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), fc.boolean(), async (commands, keptLoads) => {
        const domain = createObservabilityDomain({ seed: 'demo' });
        const port = inProcessPort(domain, 'self-hosted', 'memo');
        const inventory = memoryInventory('memo');
        const memo = new RunMemo();
        const all = estate();
        let docs = all.map((d) => structuredClone(d));
        let selection: Selection = SELECT_ALL;
        let line = 1;
        // Half the sequences load as a daemon's kept loads do: an unchanged document is the same frozen resource.
        const kept = keptLoads ? new Map<string, DesiredResource>() : undefined;
        const request = (extra: Partial<PlanRequest> = {}): PlanRequest => ({
          port,
          inventory,
          desired: load(docs, kept, line),
          sensitive: SENSITIVE_PATHS,
          selection,
          prune: true,
          maxDeletes: 50,
          ...extra,
        });
        const compare = async () => {
          const memoised = await makePlan(request({ memo }));
          const fresh = await makePlan(request());
          expect(memoised.plan).toEqual(fresh.plan);
          expect(memoised.secretValues).toEqual(fresh.secretValues);
          reusedInAll += memo.plan.stats.reused;
          return fresh;
        };
        await applyPlanned(await makePlan(request()), { port, inventory, concurrency: 2 });
        await compare();
        for (const c of commands) {
          if (c.type === 'edit') applyEdit(docs, c);
          if (c.type === 'remove') docs = docs.filter((_, j) => j !== c.i % docs.length);
          if (c.type === 'restore')
            docs = all.map((d) => docs.find((x) => x.kind === d.kind && x.metadata.name === d.metadata.name) ?? structuredClone(d));
          if (c.type === 'drift') drift(domain, c.what, c.i);
          if (c.type === 'move') line += 1;
          if (c.type === 'forget') {
            const entries = inventory.entries();
            const entry = entries[c.i % Math.max(1, entries.length)];
            if (entry) await inventory.remove(addressOf(entry.kind, entry.name));
          }
          if (c.type === 'select') {
            const d = docs[c.i % docs.length];
            selection = d && c.i % 3 !== 0 ? { labels: {}, only: [addressOf(d.kind, d.metadata.name)] } : SELECT_ALL;
          }
          const fresh = await compare();
          if (c.type === 'apply' && !fresh.plan.errored) await applyPlanned(fresh, { port, inventory, concurrency: 2 });
        }
        plansTaken += memo.last.reused;
      }),
      { numRuns: 40 },
    );
    // A memo that never found anything unchanged, or never took a plan whole (src/engine/last-plan.ts), would pass the comparisons above
    // trivially.
    expect(reusedInAll).toBeGreaterThan(0);
    expect(plansTaken).toBeGreaterThan(0);
  }, 240_000);

  it('finds every object of an unchanged estate unchanged, and compares again only what moved', async () => {
    const domain = createObservabilityDomain({ seed: 'demo' });
    const port = inProcessPort(domain, 'self-hosted', 'memo');
    const inventory = memoryInventory('memo');
    const docs = estate();
    // Each load at another line: the last plan is never taken whole (src/engine/last-plan.ts), the objects are memoised one by one.
    let line = 0;
    const req = (memo?: RunMemo): PlanRequest => ({
      port,
      inventory,
      desired: load(docs, undefined, (line += 1)),
      sensitive: SENSITIVE_PATHS,
      selection: SELECT_ALL,
      prune: false,
      maxDeletes: 0,
      ...(memo ? { memo } : {}),
    });
    await applyPlanned(await makePlan(req()), { port, inventory, concurrency: 2 });
    const memo = new RunMemo();
    await makePlan(req(memo));
    expect(memo.plan.stats).toEqual({ reused: 0, compared: docs.length });
    await makePlan(req(memo));
    expect(memo.plan.stats).toEqual({ reused: docs.length, compared: 0 });

    // Other sensitive paths make other comparable forms (the webhook's URL in clear): compared again.
    const plain = await makePlan({ ...req(memo), sensitive: new Map() });
    expect(memo.plan.stats.reused).toBeLessThan(docs.length);
    expect(plain.plan).toEqual((await makePlan({ ...req(), sensitive: new Map() })).plan);
    await makePlan(req(memo));

    // Another fingerprint key (another target's state) makes other fingerprints: the memo starts afresh.
    const otherKey = { ...req(memo), inventory: memoryInventory('memo', inventory.entries(), 'another-key') };
    await makePlan(otherKey);
    expect(memo.plan.stats).toEqual({ reused: 0, compared: docs.length });
    await makePlan(req(memo));
    expect(memo.plan.stats.reused).toBe(0);

    // The seed's Traces renamed: the dashboards whose tiles show it, and the source linked to it, are compared again.
    await makePlan(req(memo));
    drift(domain, 'rename-traces', 0);
    const renamed = await makePlan(req(memo));
    expect(memo.plan.stats.compared).toBe(DASHBOARDS + 1);
    expect(renamed.plan.diagnostics.map((d) => d.address).sort()).toEqual([
      'Alert/a0',
      'Alert/a1',
      'Alert/a2',
      'Alert/qa0',
      'Dashboard/d0',
      'Dashboard/d1',
      'Dashboard/d2',
      'SavedSearch/q0',
      'Source/s0',
    ]);
  });
});

/** A change made on the service by someone else. */
function drift(domain: ReturnType<typeof createObservabilityDomain>, what: string, i: number): void {
  const value = <T>(r: { ok: true; value: T } | { ok: false }): T | undefined => (r.ok ? r.value : undefined);
  const dashboards = value(domain.listDashboards()) ?? [];
  const dashboard = dashboards[i % Math.max(1, dashboards.length)];
  if (what === 'rename-traces') {
    const traces = value(domain.getSource(DEMO_IDS.traces));
    if (traces) domain.updateSource(DEMO_IDS.traces, { ...traces, name: traces.name === 'Traces' ? 'Traces (renamed)' : 'Traces' });
  }
  if (what === 'dashboard-tags' && dashboard)
    domain.updateDashboard(text(dashboard.id), { ...dashboard, tags: ['by hand'] }, 'self-hosted');
  if (what === 'swap-tiles' && dashboard) {
    // Tiles trade names: the inventory pairs them by id, a plan without an entry by name.
    const tiles = dashboard.tiles as { name: string }[];
    const names = tiles.map((t) => t.name).reverse();
    domain.updateDashboard(text(dashboard.id), { ...dashboard, tiles: tiles.map((t, j) => ({ ...t, name: names[j] })) }, 'self-hosted');
  }
  if (what === 'delete-dashboard' && dashboard) domain.deleteDashboard(text(dashboard.id));
  if (what === 'look-alike' && dashboard) domain.createDashboard({ name: dashboard.name, tiles: [] }, 'self-hosted');
  if (what === 'alert-state') {
    const alerts = value(domain.listAlerts({ limit: '1000', offset: '0' })) ?? [];
    const alert = alerts[i % Math.max(1, alerts.length)];
    if (alert) domain.updateAlert(text(alert.id), { ...alert, state: alert.state === 'ALERT' ? 'OK' : 'ALERT' });
  }
  if (what === 'webhook-name') {
    const hooks = value(domain.listWebhooks({ limit: '1000', offset: '0' })) ?? [];
    const hook = hooks[i % Math.max(1, hooks.length)];
    if (hook) domain.updateWebhook(text(hook.id), { ...hook, name: `${text(hook.name)} (renamed)` });
  }
  if (what === 'source-expr') {
    const sources = value(domain.listSources()) ?? [];
    const source = sources[i % Math.max(1, sources.length)];
    if (source) domain.updateSource(text(source.id), { ...source, defaultTableSelectExpression: 'Timestamp, Body' });
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
