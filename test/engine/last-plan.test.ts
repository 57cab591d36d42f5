/**
 * A daemon's run over a wholly unchanged estate takes its last plan as it was (src/engine/last-plan.ts).
 * Taken only while every input is the same — each input changed alone makes a plan afresh, equal
 * to one made without any memo — and never in a way a run could change: a taken plan is frozen.
 */
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/core/freeze.js';
import { addressOf, type Kind } from '../../src/core/plan.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { RunMemo } from '../../src/engine/memo.js';
import { applyPlanned, makePlan, type PlanRequest } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { specSchemas } from '../../src/kinds/manifest.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { documentDigest } from '../../src/manifests/document.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

const DOCS: { kind: Kind; name: string; spec: Record<string, unknown> }[] = [
  {
    kind: 'Webhook',
    name: 'w0',
    spec: { service: 'generic', name: 'hook 0', url: 'https://example.com/hook-7c1d', headers: { 'X-Key': 'v-5e6f' } },
  },
  {
    kind: 'Dashboard',
    name: 'd0',
    spec: {
      name: 'Dashboard 0',
      tags: ['a'],
      tiles: [
        {
          key: 't0',
          name: 'Lines',
          x: 0,
          y: 0,
          w: 12,
          h: 4,
          config: { displayType: 'number', source: 'Logs', select: [{ aggFn: 'count' }] },
        },
      ],
    },
  },
  {
    kind: 'Alert',
    name: 'a0',
    spec: {
      dashboard: 'd0',
      tile: 't0',
      threshold: 5,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhook: 'w0' },
      name: 'alert 0',
    },
  },
];

/** As the loader makes them (frozen when `frozen`, as a daemon's kept loads are). */
function load(frozen: boolean): DesiredResource[] {
  return DOCS.map((d) => {
    const doc = { apiVersion: 'obsync/v1', kind: d.kind, metadata: { name: d.name }, spec: d.spec };
    const res: DesiredResource = {
      kind: d.kind,
      name: d.name,
      address: addressOf(d.kind, d.name),
      labels: {},
      spec: specSchemas[d.kind].parse(structuredClone(d.spec)),
      source: { file: 'gen.yaml', line: 1, col: 1 },
      digest: documentDigest(doc),
    };
    return frozen ? deepFreeze(res) : res;
  });
}

/** The manifests with the last one made anew by `change` (frozen). */
function withLast(kept: readonly DesiredResource[], change: (r: DesiredResource) => DesiredResource): DesiredResource[] {
  return [...kept.slice(0, -1), deepFreeze(change(kept.at(-1) as DesiredResource))];
}

async function appliedEstate() {
  const domain = createObservabilityDomain({ seed: 'demo' });
  const port = inProcessPort(domain, 'self-hosted', 'last-plan');
  let inventory = memoryInventory('last-plan');
  const kept = load(true);
  const base = (): PlanRequest => ({
    port,
    inventory,
    desired: [...kept],
    sensitive: SENSITIVE_PATHS,
    selection: SELECT_ALL,
    prune: true,
    maxDeletes: 10,
  });
  await applyPlanned(await makePlan(base()), { port, inventory, concurrency: 2 });
  const memo = new RunMemo();
  return {
    domain,
    kept,
    memo,
    base,
    get inventory() {
      return inventory;
    },
    set inventory(next) {
      inventory = next;
    },
    /** A memoised plan, checked against one made without a memo; whether it was the last plan taken whole. */
    async plan(extra: Partial<PlanRequest> = {}) {
      const before = memo.last.reused;
      const memoised = await makePlan({ ...base(), ...extra, memo });
      const fresh = await makePlan({ ...base(), ...extra });
      expect(memoised.plan).toEqual(fresh.plan);
      expect(memoised.secretValues).toEqual(fresh.secretValues);
      return { planned: memoised, taken: memo.last.reused > before };
    },
  };
}

describe('the last plan, taken whole', () => {
  it('is taken while nothing it was made from changed, and each input changed alone makes a plan afresh', async () => {
    const e = await appliedEstate();
    expect((await e.plan()).taken).toBe(false);
    expect((await e.plan()).taken).toBe(true);
    expect((await e.plan()).taken).toBe(true);

    // Equal entries read again as other objects (a PostgreSQL store's refresh): still the same inputs.
    e.inventory = memoryInventory('last-plan', e.inventory.entries());
    expect((await e.plan()).taken).toBe(true);

    const afresh: [string, () => Promise<{ taken: boolean }>][] = [
      ['another selection', () => e.plan({ selection: { labels: {}, only: ['Dashboard/d0'] } })],
      ['prune off', () => e.plan({ prune: false })],
      ['another delete limit', () => e.plan({ maxDeletes: 3 })],
      ['a prune blocker', () => e.plan({ pruneBlockers: ['the manifests are invalid'] })],
      ['explicit adoption', () => e.plan({ adopt: 'explicit' })],
      ['other sensitive paths', () => e.plan({ sensitive: new Map() })],
      ['a manifest from another document', () => e.plan({ desired: withLast(e.kept, (r) => ({ ...r, digest: 'another' })) })],
      [
        'an equal manifest at another line',
        () => e.plan({ desired: withLast(e.kept, (r) => ({ ...r, source: { ...r.source, line: 9 } })) }),
      ],
      [
        'an equal manifest whose fields stand elsewhere',
        () =>
          e.plan({
            desired: withLast(e.kept, (r) => ({ ...r, source: { ...r.source, fields: { 'spec.channel.webhook': { line: 3, col: 1 } } } })),
          }),
      ],
    ];
    for (const [what, run] of afresh) {
      await e.plan();
      expect({ what, taken: (await run()).taken }).toEqual({ what, taken: false });
    }

    // Another fingerprint key (another state): every fingerprint differs.
    await e.plan();
    e.inventory = memoryInventory('last-plan', e.inventory.entries(), 'another-key');
    expect((await e.plan()).taken).toBe(false);
    expect((await e.plan()).taken).toBe(true);

    // An entry forgotten: the object is adopted again.
    const entry = e.inventory.get('Dashboard/d0');
    await e.inventory.remove('Dashboard/d0');
    const forgotten = await e.plan();
    expect(forgotten.taken).toBe(false);
    expect(forgotten.planned.plan.steps.find((s) => s.address === 'Dashboard/d0')?.adopt).toBe(true);
    if (entry) await e.inventory.put(entry);
    expect((await e.plan()).taken).toBe(false);

    // A change made on the service: the dashboard is updated back.
    expect((await e.plan()).taken).toBe(true);
    const listed = e.domain.listDashboards();
    const dashboard = listed.ok ? listed.value.find((d) => d.name === 'Dashboard 0') : undefined;
    if (typeof dashboard?.id !== 'string') throw new Error('Dashboard 0 was created');
    e.domain.updateDashboard(dashboard.id, { ...dashboard, tags: ['by hand'] }, 'self-hosted');
    const drifted = await e.plan();
    expect(drifted.taken).toBe(false);
    expect(drifted.planned.plan.steps.find((s) => s.address === 'Dashboard/d0')?.action).toBe('update');
    expect((await e.plan()).taken).toBe(true);
  });

  it(
    'is taken for manifests loaded afresh from equal documents (a ' + 'file with ${...}), never for the same objects unless frozen',
    async () => {
      const e = await appliedEstate();
      await e.plan({ desired: load(false) });
      expect((await e.plan({ desired: load(false) })).taken).toBe(true);
      // Not frozen: the same objects may have changed in place since.
      const loose = load(false);
      await e.plan({ desired: loose, maxDeletes: 4 });
      expect((await e.plan({ desired: loose, maxDeletes: 4 })).taken).toBe(false);
      // Built in code (no digest), as other objects: never the same.
      const undigested = () => load(false).map(({ digest: _, ...r }) => r);
      await e.plan({ desired: undigested() });
      expect((await e.plan({ desired: undigested() })).taken).toBe(false);
    },
  );

  it('is frozen, and each run gets a top level of its own', async () => {
    const e = await appliedEstate();
    const first = (await e.plan()).planned.plan;
    const second = (await e.plan()).planned.plan;
    expect(second).not.toBe(first);
    expect(second.steps).toBe(first.steps);
    const step = second.steps[0];
    if (!step) throw new Error('the plan has steps');
    expect(() => {
      step.action = 'delete';
    }).toThrow(TypeError);
    expect(() => second.steps.pop()).toThrow(TypeError);
    second.backtest = { window: '1d', budget: 1, perAlert: 1, needed: 0, requests: 0, deduplicated: 0, alerts: 0, skipped: 0 };
    expect((await e.plan()).planned.plan.backtest).toBeUndefined();
  });

  it('with an alert change and backtests off, is taken; a run with backtests on plans afresh and backtests the alert', async () => {
    const e = await appliedEstate();
    const changed = withLast(e.kept, (r) => ({ ...r, spec: { ...(r.spec as object), threshold: 9 }, digest: 'threshold 9' }));
    await makePlan({ ...e.base(), desired: changed, memo: e.memo });
    const again = await makePlan({ ...e.base(), desired: changed, memo: e.memo });
    expect(e.memo.last.reused).toBe(1);
    expect(again.plan.steps.find((s) => s.address === 'Alert/a0')?.action).toBe('update');
    const backtest = { windowMs: 86_400_000, window: '1d', budget: 10, perAlert: 2, now: new Date('2026-01-01T00:00:00Z') };
    const withBacktests = await makePlan({ ...e.base(), desired: changed, backtest, memo: e.memo });
    expect(e.memo.last.reused).toBe(1);
    expect(withBacktests.plan.backtest?.alerts).toBe(1);
  });

  it('is never kept when it backtests alerts: their series are read at the time of each run', async () => {
    const e = await appliedEstate();
    const changed = [...e.kept.slice(0, -1), deepFreeze({ ...(e.kept.at(-1) as DesiredResource), digest: 'other' })];
    const alert = changed.at(-1) as DesiredResource;
    changed[changed.length - 1] = deepFreeze({ ...alert, spec: { ...(alert.spec as object), threshold: 9 } });
    const backtest = { windowMs: 86_400_000, window: '1d', budget: 10, perAlert: 2, now: new Date('2026-01-01T00:00:00Z') };
    await makePlan({ ...e.base(), desired: changed, backtest, memo: e.memo });
    const again = await makePlan({ ...e.base(), desired: changed, backtest, memo: e.memo });
    expect(e.memo.last.reused).toBe(0);
    expect(again.plan.backtest?.alerts).toBe(1);
  });
});
