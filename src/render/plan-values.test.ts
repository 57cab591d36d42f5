/**
 * planned_values, prior_state and configuration of the JSON plan (issue 51): present, and the same
 * objects with the same values as resource_changes — on real plans of the sandbox (an adoption, an
 * update, a prune, an unchanged pipe with a secret) and on generated plans (fast-check).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameJson } from '../core/json.js';
import type { Action, Plan, PlanStep } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import type { RunReport } from '../engine/reconcile.js';
import { alertYaml, dashboardYaml, PIPE, PIPE_SECRET, PlanFixture } from '../../test/support/plans.js';
import { planDocument, renderPlanJson } from './plan-json.js';
import { planDocumentSchema, type PlanDocument } from './plan-schema.js';
import { resourceAddress } from './terraform-address.js';

const ORIGIN = { generatedAt: new Date('2026-01-02T03:04:05Z'), obsyncVersion: '0.1.0', manifests: ['/m'] };

type Resource = { address: string; values?: Record<string, Json>; sensitive_values: unknown };

/** Every way the three sections can disagree with resource_changes; empty when they agree. */
function disagreements(doc: PlanDocument): string[] {
  const out: string[] = [];
  const byAddress = (modules: { resources: Resource[] }[]) => new Map(modules.flatMap((m) => m.resources).map((r) => [r.address, r]));
  const planned = byAddress(doc.planned_values.root_module.child_modules);
  const prior = byAddress(doc.prior_state.values.root_module.child_modules);
  const declared = new Map<string, (typeof doc.configuration.root_module.module_calls)[string]['module']['resources'][number]>(
    Object.entries(doc.configuration.root_module.module_calls).flatMap(([target, call]) =>
      call.module.resources.map((r) => [`module.${target}.${r.address}`, r] as const),
    ),
  );
  const sides = { after: planned, before: prior } as const;
  for (const c of doc.resource_changes) {
    for (const side of ['before', 'after'] as const) {
      const value = c.change[side];
      const found = sides[side].get(c.address);
      if (value === undefined) out.push(`${c.address}: no ${side} in its change`);
      else if (value === null) {
        if (found) out.push(`${c.address}: ${side} null, yet listed`);
      } else if (!found || !sameJson(found.values, value)) out.push(`${c.address}: ${side} differs`);
      else {
        const mask = c.change[`${side}_sensitive`];
        if (!sameJson(found.sensitive_values as Json, typeof mask === 'object' ? mask : {})) out.push(`${c.address}: ${side} mask differs`);
      }
    }
    const config = declared.get(c.address);
    const after = c.change.after;
    if (c.change.actions[0] === 'delete') {
      if (config) out.push(`${c.address}: deleted, yet declared`);
    } else {
      const constants = Object.fromEntries(Object.entries(config?.expressions ?? {}).map(([k, e]) => [k, e.constant_value]));
      if (!config || !sameJson(constants, after ?? null)) out.push(`${c.address}: configuration differs`);
    }
  }
  const changed = new Set(doc.resource_changes.map((c) => c.address));
  for (const [name, section] of [
    ['planned', planned],
    ['prior', prior],
    ['configuration', declared],
  ] as const)
    for (const address of section.keys()) if (!changed.has(address)) out.push(`${address}: in ${name} only`);
  return out;
}

describe('on real plans (hosted sandbox)', () => {
  let f: PlanFixture;
  let create: RunReport;
  let change: RunReport;
  let textOnly: RunReport;

  beforeAll(async () => {
    f = await PlanFixture.start('hosted');
    await (await import('../kinds/registry.js')).collectionOf(f.port, 'Dashboard').create({ name: 'Legacy board', tiles: [], tags: [] });
    const base = {
      'checkout.yaml': dashboardYaml('checkout', 'Checkout service', [{ key: 'p99', name: 'p99 latency', level: 0.99 }]),
      'legacy.yaml': dashboardYaml('legacy', 'Legacy board', [{ key: 'a', name: 'A' }]),
      'scratch.yaml': dashboardYaml('scratch', 'Scratch', [{ key: 's', name: 'S' }]),
      'alert.yaml': alertYaml('checkout-p99', { dashboard: 'checkout', tile: 'p99', threshold: 500, interval: '5m', webhook: 'ops-slack' }),
      'pipe.yaml': PIPE,
    };
    f.manifests(base);
    create = await f.run('plan', { unchangedForms: true });
    await f.run('apply');
    const { 'scratch.yaml': _pruned, ...rest } = base;
    f.manifests({ ...rest, 'alert.yaml': base['alert.yaml'].replace('threshold: 500', 'threshold: 400') });
    change = await f.run('plan', { prune: true, unchangedForms: true });
    textOnly = await f.run('plan', { prune: true });
  }, 60_000);

  afterAll(() => f?.close());

  it('lists every object with the values of its change: creates, an adoption, an update, a delete, unchanged ones', () => {
    for (const plan of [create.plan, change.plan]) {
      const doc = planDocument([plan], ORIGIN);
      expect(disagreements(doc)).toEqual([]);
      expect(doc.resource_changes.length).toBeGreaterThan(0);
    }
    const actions = planDocument([change.plan], ORIGIN).resource_changes.map((c) => c.change.actions[0]);
    expect(new Set(actions)).toEqual(new Set(['update', 'delete', 'no-op']));
    const adopted = planDocument([create.plan], ORIGIN).resource_changes.find((c) => c.change.importing);
    expect(adopted?.address).toBe('module.sandbox-hosted.Dashboard.legacy');
  });

  it('shows an unchanged object as Terraform does (no-op: before = after), its secret masked and marked in every section', () => {
    const doc = planDocument([change.plan], ORIGIN);
    const pipe = doc.resource_changes.find((c) => c.obsync_address === 'Pipe/events-s3');
    expect(pipe?.change.actions).toEqual(['no-op']);
    expect(pipe?.change.before).toEqual(pipe?.change.after);
    const mask = { source: { objectStorage: { accessKey: true } } };
    expect(pipe?.change.after_sensitive).toEqual(mask);
    const planned = doc.planned_values.root_module.child_modules[0]?.resources.find((r) => r.type === 'Pipe');
    expect(planned?.sensitive_values).toEqual(mask);
    expect(planned?.values).toMatchObject({ source: { objectStorage: { accessKey: '(sensitive)' } } });
    const declared = doc.configuration.root_module.module_calls['sandbox-hosted']?.module.resources.find((r) => r.type === 'Pipe');
    expect(declared?.expressions?.source?.constant_value).toMatchObject({ objectStorage: { accessKey: '(sensitive)' } });
    const text = renderPlanJson(doc);
    expect(text).not.toContain(PIPE_SECRET);
    expect(text).not.toContain('$sensitive');
  });

  it('keeps the forms out of the steps apply reads, and parses back', () => {
    const doc = planDocument([change.plan], ORIGIN);
    expect(doc.targets[0]?.steps.some((s) => 'form' in s)).toBe(false);
    expect(planDocumentSchema.safeParse(JSON.parse(renderPlanJson(doc))).success).toBe(true);
  });

  it('a plan made for text keeps no unchanged forms: its no-op changes and resources carry no values', () => {
    expect(textOnly.plan.steps.some((s) => s.form !== undefined)).toBe(false);
    const doc = planDocument([textOnly.plan], ORIGIN);
    const noop = doc.resource_changes.find((c) => c.change.actions[0] === 'no-op');
    expect(noop?.change.after).toBeUndefined();
    expect(doc.planned_values.root_module.child_modules[0]?.resources.find((r) => r.address === noop?.address)?.values).toBeUndefined();
  });

  it('is complete only when everything was planned and nothing was narrowed', () => {
    expect(planDocument([change.plan], ORIGIN)).toMatchObject({ complete: true, timestamp: '2026-01-02T03:04:05.000Z' });
    expect(planDocument([change.plan], { ...ORIGIN, narrowed: true }).complete).toBe(false);
    const failed = { ...change.plan, diagnostics: [{ severity: 'error' as const, code: 'x', message: 'could not be planned' }] };
    expect(planDocument([failed], ORIGIN).complete).toBe(false);
  });
});

const KIND_NAMES = ['Dashboard', 'Alert', 'Webhook'] as const;
const ACTIONS: readonly Action[] = ['create', 'update', 'delete', 'noop'];

/** A form as the planner makes them: an object whose leaves may be fingerprinted secrets. */
const form: fc.Arbitrary<Json> = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6 }),
  fc.oneof(
    fc.jsonValue() as fc.Arbitrary<Json>,
    fc.nat().map((n) => ({ $sensitive: `fingerprint-of-a-secret-${n}` })),
  ),
  { maxKeys: 5 },
);

const step = fc.record({ kind: fc.constantFrom(...KIND_NAMES), action: fc.constantFrom(...ACTIONS), before: form, after: form });

function planOf(target: string, steps: { kind: (typeof KIND_NAMES)[number]; action: Action; before: Json; after: Json }[]): Plan {
  const made: PlanStep[] = steps.map((s, i) => ({
    address: `${s.kind}/o${i}`,
    kind: s.kind,
    name: `o${i}`,
    action: s.action,
    reason: s.action === 'noop' ? 'unchanged' : 'spec-changed',
    changes: [],
    dependsOn: i > 0 ? [`${steps[0]?.kind ?? 'Dashboard'}/o0`] : [],
    ...(s.action === 'create' || s.action === 'noop' ? {} : { current: s.before }),
    ...(s.action === 'delete' || s.action === 'noop' ? {} : { expected: { value: s.after, names: [] } }),
    ...(s.action === 'noop' ? { form: s.before } : {}),
  }));
  return {
    formatVersion: 2,
    target,
    variant: 'hosted',
    steps: made,
    summary: { create: 0, update: 0, delete: 0, noop: 0, move: 0 },
    prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics: [],
    errored: false,
  };
}

describe('on generated plans', () => {
  it(
    'every object of resource_changes is in the sections its action puts it in, with the same values and ' + 'masks, and no fingerprint',
    () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 6 }), fc.array(step, { maxLength: 6 }), (a, b) => {
          const doc = planDocument([planOf('prod', a), planOf('staging', b)], ORIGIN);
          expect(disagreements(doc)).toEqual([]);
          // The steps (what apply executes) carry fingerprints to find the values again; what readers see carries none.
          expect(renderPlanJson({ ...doc, targets: [] })).not.toContain('fingerprint-of-a-secret');
          expect(doc.planned_values.root_module.child_modules.map((m) => m.address)).toEqual(['module.prod', 'module.staging']);
          expect(doc.resource_changes.map((c) => c.address)).toEqual([
            ...a.map((s, i) => resourceAddress('prod', `${s.kind}/o${i}`)),
            ...b.map((s, i) => resourceAddress('staging', `${s.kind}/o${i}`)),
          ]);
        }),
        { numRuns: 200 },
      );
    },
  );
});
