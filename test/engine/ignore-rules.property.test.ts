/**
 * Property (issue 48): ignore rules only take differences away. For random UI edits of owned
 * dashboards and alerts and random rules on them, the plan with the rules against the plan without
 * them, on the same live state: every step keeps its address and place; a step's changes are the
 * plain plan's changes less the ignored ones, each ignored difference lies under one of the
 * object's rules, a step whose changes all went is a no-op, and an object without rules plans alike.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIgnorePath, ruleCovers } from '../../src/core/ignore.js';
import type { Change, Plan } from '../../src/core/plan.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { readLive } from '../../src/engine/live.js';
import { planInputOf, type PlanRequest } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { collectionOf, REGISTRY } from '../../src/kinds/registry.js';
import { splitPath } from '../../src/planner/diff.js';
import { plan } from '../../src/planner/plan.js';
import { World } from '../support/world.js';

const tile = (key: string, x: number) =>
  `    - {key: ${key}, name: ${key} tile, x: ${x}, y: 0, w: 6, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, ` +
  `valueExpression: Duration}]}}`;
const dashboard = (name: string) =>
  `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: ${name}}
spec:
  name: ${name} board
  tags: [team]
  tiles:
${tile('a', 0)}
${tile('b', 6)}
---
apiVersion: obsync/v1
kind: Alert
metadata: {name: ${name}-slow}
spec: {dashboard: ${name}, tile: a, name: ${name} slow, threshold: 10, thresholdType: above, interval: 5m, channel: {type: webhook, ` +
  `webhook: ops-slack}}
`;

const DASHBOARD_RULES = ['tiles[*].x', 'tiles[*].y', 'tiles[*].w', 'tiles[*].name', 'tags', 'savedFilterValues', 'name'];
const ALERT_RULES = ['threshold', 'message', 'name', 'interval'];

/** A UI edit: one field of one owned object changed on the service. */
const uiEdit = fc.record({ board: fc.nat(2), field: fc.nat(9), value: fc.integer({ min: 1, max: 30 }) });
const rulesOf = fc.record({
  dashboards: fc.array(fc.tuple(fc.nat(2), fc.subarray(DASHBOARD_RULES, { minLength: 1 })), { maxLength: 3 }),
  alerts: fc.array(fc.tuple(fc.nat(2), fc.subarray(ALERT_RULES, { minLength: 1 })), { maxLength: 3 }),
});

const key = (c: Change) => JSON.stringify([c.path, c.before ?? null, c.after ?? null]);

describe('ignore rules (property)', () => {
  const world = new World('self-hosted');
  const names = ['alpha', 'beta', 'gamma'];
  let desired: DesiredResource[] = [];
  beforeAll(async () => {
    const files = Object.fromEntries(names.map((n) => [`${n}.yaml`, dashboard(n)]));
    desired = world.load(files).resources;
    const { report } = await world.apply(files);
    expect(report.summary.failed).toBe(0);
  });
  afterAll(() => world.close());

  async function edit(e: { board: number; field: number; value: number }): Promise<void> {
    const dashboards = collectionOf(world.port, 'Dashboard');
    const alerts = collectionOf(world.port, 'Alert');
    const board = (await dashboards.list()).find((d) => d.name === `${names[e.board]} board`);
    if (!board) throw new Error('no board');
    const [a, b] = board.tiles;
    if (!a || !b) throw new Error('no tiles');
    const edits: Record<number, () => Promise<unknown>> = {
      0: () => dashboards.update(board.id, { ...board, tiles: [{ ...a, x: e.value % 6 }, b] } as never),
      1: () => dashboards.update(board.id, { ...board, tiles: [a, { ...b, y: e.value }] } as never),
      2: () => dashboards.update(board.id, { ...board, tiles: [{ ...a, w: 1 + (e.value % 11) }, b] } as never),
      3: () => dashboards.update(board.id, { ...board, tiles: [a, { ...b, name: `renamed ${e.value}` }] } as never),
      4: () => dashboards.update(board.id, { ...board, tags: [`t${e.value}`] } as never),
      5: () => dashboards.update(board.id, { ...board, savedFilterValues: [{ type: 'sql', condition: `x = ${e.value}` }] } as never),
      6: () => dashboards.update(board.id, { ...board, tiles: [{ ...a, h: 1 + (e.value % 5) }, b] } as never),
    };
    const run = edits[e.field];
    if (run) return void (await run());
    const alert = (await alerts.list()).find((x) => x.dashboardId === board.id);
    if (!alert) throw new Error('no alert');
    const { id: _id, ...body } = alert;
    const changed = e.field === 7 ? { threshold: e.value } : e.field === 8 ? { message: `message ${e.value}` } : { interval: '15m' };
    await alerts.update(alert.id, { ...body, ...changed } as never);
  }

  function withRules(rules: { dashboards: [number, string[]][]; alerts: [number, string[]][] }): DesiredResource[] {
    const add = new Map<string, string[]>();
    for (const [i, paths] of rules.dashboards) add.set(`Dashboard/${names[i]}`, [...(add.get(`Dashboard/${names[i]}`) ?? []), ...paths]);
    for (const [i, paths] of rules.alerts) add.set(`Alert/${names[i]}-slow`, [...(add.get(`Alert/${names[i]}-slow`) ?? []), ...paths]);
    return desired.map((r) => {
      const paths = add.get(r.address);
      if (!paths) return r;
      const { digest: _digest, ...rest } = r;
      return { ...rest, ignore: paths.map((path) => ({ path, from: 'metadata.ignore' })) };
    });
  }

  it('only takes differences away, at the rules’ paths', { timeout: 60_000 }, async () => {
    let ignoredSeen = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(uiEdit, { minLength: 1, maxLength: 3 }), rulesOf, async (edits, rules) => {
        for (const e of edits) await edit(e);
        const kinds = REGISTRY.filter((d) => d.kind === 'Dashboard' || d.kind === 'Alert' || d.kind === 'Source' || d.kind === 'Webhook');
        const live = await readLive(world.port, kinds);
        const inventory = world.inventory.entries();
        const req = (d: DesiredResource[]): PlanRequest => ({
          port: world.port,
          inventory: world.inventory,
          desired: d,
          selection: SELECT_ALL,
          prune: false,
          maxDeletes: 0,
        });
        const ruled = withRules(rules);
        const plain: Plan = plan(planInputOf(req(desired), live, inventory).input);
        const withIgnore: Plan = plan(planInputOf(req(ruled), live, inventory).input);
        expect(withIgnore.steps.map((s) => s.address)).toEqual(plain.steps.map((s) => s.address));
        expect(withIgnore.diagnostics).toEqual(plain.diagnostics);
        for (const [i, s1] of withIgnore.steps.entries()) {
          const s0 = plain.steps[i];
          if (!s0) throw new Error('no step');
          const res = ruled.find((r) => r.address === s1.address);
          if (!res?.ignore) {
            expect(s1).toEqual(s0);
            continue;
          }
          const ignored = s1.ignored ?? [];
          ignoredSeen += ignored.length;
          expect([...s1.changes, ...ignored].map(key).sort()).toEqual(s0.changes.map(key).sort());
          const segments = res.ignore.map((r) => {
            const p = parseIgnorePath(r.path);
            return 'segments' in p ? p.segments : [];
          });
          for (const c of ignored)
            expect(
              segments.some((seg) => ruleCovers(seg, splitPath(c.path))),
              c.path,
            ).toBe(true);
          expect(s1.action).toBe(s1.changes.length === 0 && s0.action === 'update' ? 'noop' : s0.action);
          expect(s1.dependsOn).toEqual(s0.dependsOn);
          if (s1.action === 'update') expect(s1.reason).toBe(s0.reason);
        }
      }),
      { numRuns: 25 },
    );
    // Not vacuous: the runs did leave differences out.
    expect(ignoredSeen).toBeGreaterThan(5);
  });
});
