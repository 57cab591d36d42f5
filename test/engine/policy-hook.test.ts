/**
 * The policy hook of reconcile (issue 43), in-process on the sandbox's domain: an unwaived error
 * finding refuses the apply before anything is confirmed or written, a waived one lets it run; and a
 * property: rules never change what apply writes, only whether it may run — for random manifests
 * before and after, random rules, settings and waivers, the plan with the hook is the plan without it
 * plus its findings, a refused apply writes nothing, and an allowed one applies the plan made
 * without the hook, step for step.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/core/resource.js';
import { reconcile, type ReconcileRequest, type RunReport } from '../../src/engine/reconcile.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { alertSpecSchema } from '../../src/kinds/alert/schema.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { checkPolicy } from '../../src/policy/check.js';
import { blocking } from '../../src/policy/model.js';
import type { PolicyRule } from '../../src/policy/policy-manifest.js';
import { PolicyRefusal } from '../../src/policy/refusal.js';
import { policySettingsSchema, type PolicySettings } from '../../src/policy/settings.js';
import { World } from '../support/world.js';

function request(world: World, desired: readonly DesiredResource[], mode: 'plan' | 'apply'): ReconcileRequest {
  return {
    port: world.port,
    inventory: world.inventory,
    desired,
    sensitive: SENSITIVE_PATHS,
    selection: SELECT_ALL,
    prune: true,
    allowEmptyKinds: ['Dashboard', 'Alert'],
    maxDeletes: 100,
    concurrency: 2,
    mode,
  };
}

/** The hook the CLI and the daemon give reconcile: the policy check of the plan over these manifests. */
function hook(world: World, desired: readonly DesiredResource[], rules: readonly PolicyRule[], settings: PolicySettings | undefined) {
  return (plan: RunReport['plan']) =>
    checkPolicy({ resources: desired, rules, settings, target: { name: world.port.target, variant: world.port.variant }, plan });
}

const board = (waiver: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: checkout${waiver}
spec: {name: checkout, tiles: []}
`;

describe('apply with the policy hook', () => {
  const world = new World('self-hosted');
  afterAll(() => world.close());
  const settings = policySettingsSchema.parse({ namePatterns: { Dashboard: '^[A-Z]' } });

  it('is refused on an unwaived error finding before it is confirmed or anything is written; a waiver lets it run', async () => {
    const { resources } = world.load({ 'all.yaml': board('') });
    let asked = 0;
    const refused = reconcile({
      ...request(world, resources, 'apply'),
      policy: hook(world, resources, [], settings),
      beforeApply: () => void asked++,
    });
    await expect(refused).rejects.toBeInstanceOf(PolicyRefusal);
    const error = (await refused.catch((e: unknown) => e)) as PolicyRefusal;
    expect(error.message).toContain("apply refused on target 'world': 1 policy error(s)");
    expect(error.message).toMatch(/all\.yaml:1: Dashboard\/checkout: the name 'checkout' does not match \^\[A-Z\] .*\[name-pattern\]/);
    expect(error.findings.map((f) => f.rule)).toEqual(['name-pattern']);
    expect(asked).toBe(0);
    expect(world.port.stats.writes).toBe(0);

    const waived = world.load({ 'all.yaml': board('\n  waivers: [{rule: name-pattern, reason: "named by the payments team"}]') }).resources;
    const run = await reconcile({ ...request(world, waived, 'apply'), policy: hook(world, waived, [], settings) });
    expect(run.plan.policy?.map((f) => [f.rule, f.waived])).toEqual([['name-pattern', 'named by the payments team']]);
    expect(run.apply?.summary.failed).toBe(0);
    expect((await collectionOf(world.port, 'Dashboard').list()).map((d) => d.name)).toContain('checkout');
  });
});

const RULES: readonly Omit<PolicyRule, 'severity' | 'policy' | 'file' | 'line' | 'col'>[] = [
  { id: 'upper-name', kinds: ['Dashboard'], expression: 'object.spec.name.matches("^[A-Z]")', message: 'capitalised' },
  { id: 'few-tiles', kinds: ['Dashboard'], expression: 'size(object.spec.tiles) <= 2', message: 'two tiles at most' },
  { id: 'no-update', kinds: ['Dashboard', 'Alert'], expression: 'change.action != "update"', message: 'frozen' },
  { id: 'low-threshold', kinds: ['Alert'], expression: 'object.spec.threshold < 10', message: 'low thresholds' },
  { id: 'prod-tag', kinds: ['Dashboard'], expression: '"prod" in object.spec.tags', message: 'tagged prod' },
  { id: 'eval-error', kinds: ['Alert'], expression: 'object.spec.nope == 1', message: 'never evaluates' },
  { id: 'no-compile', kinds: ['Dashboard'], expression: 'size(', message: 'never compiles' },
];
const RULE_IDS = [...RULES.map((r) => r.id), 'name-pattern', 'required-tags', 'protected-delete', 'alert-channel'];

const boardArb = fc.record({
  name: fc.constantFrom('API', 'Checkout', 'payments', 'search'),
  tags: fc.subarray(['prod', 'owner:a', 'team-b']),
  tiles: fc.integer({ min: 1, max: 3 }),
  threshold: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
  waive: fc.subarray(RULE_IDS, { maxLength: 2 }),
});
// Sparse rules and settings, errors the rarer severity: about half the runs are refused, half applied.
const rulesArb = fc
  .subarray(RULES.slice(), { maxLength: 2 })
  .chain((picked) =>
    fc
      .tuple(...picked.map(() => fc.constantFrom<'error' | 'warning'>('error', 'warning', 'warning')))
      .map((severities) =>
        picked.map(
          (r, i): PolicyRule => ({ ...r, severity: severities[i] ?? 'error', policy: 'p', file: 'policies/p.yaml', line: i + 1, col: 7 }),
        ),
      ),
  );
const rarely = fc.nat(3).map((n) => n === 0);
const settingsArb = fc.record({ tags: rarely, pattern: rarely, protect: rarely, strict: rarely }).map((s) =>
  policySettingsSchema.parse({
    ...(s.tags ? { requiredTags: ['prod'] } : {}),
    ...(s.pattern ? { namePatterns: { Dashboard: '^[A-Z]' } } : {}),
    ...(s.protect ? { protectedTargets: ['world'] } : {}),
    ...(s.strict ? { rules: { 'alert-channel': 'error' } } : {}),
  }),
);

type Board = typeof boardArb extends fc.Arbitrary<infer T> ? T : never;

/** Dashboard d<i> (and its alert a<i> when it has a threshold): the same index is the same object before and after. */
function declared(boards: readonly Board[]): DesiredResource[] {
  const source = { file: 'gen.yaml', line: 1, col: 1 };
  return boards.flatMap((b, i) => {
    const tiles = Array.from({ length: b.tiles }, (_, j) => ({
      key: `t${j}`,
      name: `tile ${j}`,
      x: 0,
      y: j * 4,
      w: 6,
      h: 4,
      config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'avg', valueExpression: 'Duration' }] },
    }));
    const waivers = b.waive.map((rule) => ({ rule, reason: 'generated' }));
    const common = { labels: {}, source, ...(waivers.length > 0 ? { waivers } : {}) };
    const spec = dashboardSpecSchema.parse({ name: `${b.name} ${i}`, tags: b.tags, tiles });
    const out: DesiredResource[] = [{ kind: 'Dashboard', name: `d${i}`, address: `Dashboard/d${i}`, spec, ...common }];
    if (b.threshold === undefined) return out;
    const alert = alertSpecSchema.parse({
      dashboard: `d${i}`,
      tile: 't0',
      threshold: b.threshold,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhook: 'ops-slack' },
      name: `alert ${i}`,
    });
    return [...out, { kind: 'Alert', name: `a${i}`, address: `Alert/a${i}`, spec: alert, ...common }];
  });
}

describe('rules never change what apply writes (property)', () => {
  it('the plan with the hook is the plan without it plus findings; refused writes nothing, allowed applies the same', async () => {
    const seen = { refused: 0, applied: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(boardArb, { maxLength: 3 }),
        fc.array(boardArb, { maxLength: 3 }),
        rulesArb,
        settingsArb,
        async (before, after, rules, settings) => {
          const world = new World('self-hosted');
          try {
            await reconcile(request(world, declared(before), 'apply'));
            const desired = declared(after);
            const policy = hook(world, desired, rules, settings);
            const without = await reconcile(request(world, desired, 'plan'));
            const withHook = await reconcile({ ...request(world, desired, 'plan'), policy });
            const { policy: findings = [], ...rest } = withHook.plan;
            expect(rest).toEqual(without.plan);

            const writes = world.port.stats.writes;
            if (blocking(findings).length > 0) {
              await expect(reconcile({ ...request(world, desired, 'apply'), policy })).rejects.toBeInstanceOf(PolicyRefusal);
              expect(world.port.stats.writes).toBe(writes);
              seen.refused++;
            } else {
              // Nothing moved since `without` was planned: the apply runs exactly its steps.
              const ruled = await reconcile({ ...request(world, desired, 'apply'), policy });
              expect(ruled.plan.steps).toEqual(without.plan.steps);
              expect(ruled.apply?.results.map((r) => [r.address, r.action])).toEqual(without.plan.steps.map((s) => [s.address, s.action]));
              expect(ruled.apply?.summary.failed).toBe(0);
              seen.applied++;
            }
          } finally {
            await world.close();
          }
        },
      ),
      { numRuns: 25 },
    );
    // Not vacuous: both branches ran.
    expect(seen.refused).toBeGreaterThan(3);
    expect(seen.applied).toBeGreaterThan(3);
  });
});
