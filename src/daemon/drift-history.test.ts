import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Change, Plan, PlanStep } from '../core/plan.js';
import { memoryInventory } from '../inventory/memory-store.js';
import { createLogger } from '../log/logger.js';
import { DriftHistory, driftHistoryNote, ruleLines, suggestionEvent } from './drift-history.js';
import { recordKept } from './kept-drift-history.js';

const DAY = 86_400_000;

function drifted(paths: string[], over: Partial<PlanStep> = {}): PlanStep {
  return {
    address: 'Dashboard/checkout',
    kind: 'Dashboard',
    name: 'checkout',
    action: 'update',
    reason: 'drifted',
    changes: paths.map((path): Change => ({ path, before: 1, after: 0 })),
    dependsOn: [],
    ...over,
  };
}

function run(steps: PlanStep[], mode: 'apply' | 'plan' = 'apply', held?: PlanStep['address'][]) {
  const plan = { steps } as unknown as Plan;
  return { mode, plan, ...(held ? { held } : {}) };
}

/** A history on a fake clock: `at(days)` moves it. */
function history(after = 3, withinDays = 30) {
  let now = Date.parse('2026-11-01T00:00:00Z');
  const h = new DriftHistory('prod', { after, withinMs: withinDays * DAY }, () => new Date(now));
  return { h, at: (days: number) => (now = Date.parse('2026-11-01T00:00:00Z') + days * DAY) };
}

describe('DriftHistory', () => {
  it('gives YAML lines that read as a manifest metadata.ignore and an obsync.yaml target ignore', () => {
    const lines = ruleLines('prod', 'Dashboard', 'tiles[*].x');
    expect(parseYaml(lines.manifest)).toEqual({ metadata: { ignore: ['tiles[*].x'] } });
    expect(parseYaml(lines.config)).toEqual({ targets: [{ name: 'prod', ignore: { Dashboard: ['tiles[*].x'] } }] });
  });
  it('suggests once, at the third run within the window that saw the field drift, counting a field once per run', () => {
    const { h, at } = history();
    // Two tiles moved in one edit: one drift of tiles[*].x.
    expect(h.record(run([drifted(['tiles.p99.x', 'tiles.p50.x'])]))).toEqual([]);
    at(10);
    expect(h.record(run([drifted(['tiles.p99.x'])]))).toEqual([]);
    at(11);
    expect(h.record(run([]))).toEqual([]);
    at(20);
    const [s, ...more] = h.record(run([drifted(['tiles.p50.x', 'name'])]));
    expect(more).toEqual([]);
    expect(s).toMatchObject({ address: 'Dashboard/checkout', path: 'tiles[*].x', times: 3, withinDays: 30 });
    expect(s?.lines.manifest).toContain('ignore: ["tiles[*].x"]');
    expect(suggestionEvent(s ?? ({} as never))).not.toHaveProperty('since');
    expect(h.open().map((o) => o.path)).toEqual(['tiles[*].x']);
    at(21);
    expect(h.record(run([drifted(['tiles.p99.x'])]))).toEqual([]);
    expect(h.open()).toHaveLength(1);
  });

  it('forgets drifts older than the window: three drifts spread over more than it suggest nothing', () => {
    const { h, at } = history();
    h.record(run([drifted(['tiles.p99.x'])]));
    at(20);
    h.record(run([drifted(['tiles.p99.x'])]));
    at(31);
    expect(h.record(run([drifted(['tiles.p99.x'])]))).toEqual([]);
    expect(h.open()).toEqual([]);
  });

  it('drops a suggestion once it stops drifting that often, and may suggest it again later', () => {
    const { h, at } = history(2, 5);
    h.record(run([drifted(['tiles.p99.x'])]));
    at(1);
    expect(h.record(run([drifted(['tiles.p99.x'])]))).toHaveLength(1);
    at(5.5);
    h.record(run([]));
    expect(h.open()).toEqual([]);
    at(6);
    h.record(run([drifted(['tiles.p99.x'])]));
    at(7);
    expect(h.record(run([drifted(['tiles.p99.x'])]))).toHaveLength(1);
  });

  it('drops a suggestion when the plan shows the field ignored by a rule', () => {
    const { h, at } = history(2);
    h.record(run([drifted(['tiles.p99.x'])]));
    at(1);
    h.record(run([drifted(['tiles.p99.x'])]));
    expect(h.open()).toHaveLength(1);
    at(2);
    const ignored = { path: 'tiles.p50.x', before: 3, after: 0, rule: 'tiles[*].x', from: 'metadata.ignore' };
    h.record(run([drifted([], { action: 'noop', reason: 'unchanged', ignored: [ignored] })]));
    expect(h.open()).toEqual([]);
  });

  it('counts a drift that is not put back once, not once per run (plan mode, drift: report | propose)', () => {
    const { h, at } = history(2);
    const step = drifted(['tiles.p99.x']);
    for (let day = 0; day < 5; day++) {
      at(day);
      expect(h.record(run([step], 'apply', [step.address]))).toEqual([]);
    }
    for (let day = 5; day < 10; day++) {
      at(day);
      expect(h.record(run([step], 'plan'))).toEqual([]);
    }
    // Healed in between (revert): a new edit, the second drift counted.
    at(11);
    h.record(run([]));
    at(12);
    expect(h.record(run([step]))).toMatchObject([{ times: 2 }]);
  });

  it('counts only changes made on the service, not manifest changes', () => {
    const { h, at } = history(2);
    for (let day = 0; day < 3; day++) {
      at(day);
      expect(h.record(run([drifted(['tiles.p99.x'], { reason: 'spec-changed' })]))).toEqual([]);
    }
  });
});

describe('the drift history kept in the state (recordKept)', () => {
  const quiet = () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (b: Buffer) => lines.push(...b.toString().trim().split('\n')));
    return { logger: createLogger({ stream: out }), lines };
  };

  it('carries the count over a restart and to the replica that takes the target over, and suggests once', async () => {
    const inventory = memoryInventory('prod');
    const { logger } = quiet();
    let now = Date.parse('2026-11-01T00:00:00Z');
    const fresh = () => new DriftHistory('prod', { after: 3, withinMs: 30 * DAY }, () => new Date(now));
    const step = drifted(['tiles.p99.x']);
    expect(await recordKept(fresh(), run([step]), inventory, logger)).toEqual([]);
    now += DAY;
    // Healed in between: a second edit.
    await recordKept(fresh(), run([]), inventory, logger);
    now += DAY;
    expect(await recordKept(fresh(), run([step]), inventory, logger)).toEqual([]);
    now += DAY;
    const another = fresh();
    expect(await recordKept(another, run([]), inventory, logger)).toEqual([]);
    now += DAY;
    expect(await recordKept(another, run([step]), inventory, logger)).toMatchObject([{ path: 'tiles[*].x', times: 3 }]);
    now += DAY;
    expect(await recordKept(fresh(), run([step], 'apply', [step.address]), inventory, logger)).toEqual([]);
    expect(driftHistoryNote.parse(await inventory.readNote('drift-history')).seen).toMatchObject([{ suggested: true }]);
  });

  it('goes on in memory, and fails no run, when the state cannot be written or holds what is not a history', async () => {
    const inventory = memoryInventory('prod');
    await inventory.writeNote('drift-history', { version: 99 });
    const { logger, lines } = quiet();
    const { h, at } = history(2);
    await recordKept(h, run([drifted(['name'])]), inventory, logger);
    expect(lines.join('\n')).toContain('drift history not read');
    expect(driftHistoryNote.parse(await inventory.readNote('drift-history')).seen).toHaveLength(1);
    const readOnly = { ...inventory, writeNote: () => Promise.reject(new Error('read-only')) };
    at(1);
    await recordKept(h, run([]), readOnly, logger);
    at(2);
    expect(await recordKept(h, run([drifted(['name'])]), readOnly, logger)).toMatchObject([{ path: 'name', times: 2 }]);
    expect(lines.join('\n')).toContain('drift history not written');
  });
});
