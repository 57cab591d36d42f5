/**
 * The engine against the sandbox's own rules (in-process, no HTTP): apply converges, a second
 * plan is empty, tile alerts survive dashboard updates, and ownership guards prune.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InventoryStore } from '../../src/core/inventory.js';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

let dir: string;
let port: ServicePort;
let inventory: InventoryStore;

function load() {
  const { resources, diagnostics } = loadManifests(
    [join(dir, 'team/dashboards'), join(dir, 'team/alerts'), join(dir, 'kinds/dashboard.yaml'), join(dir, 'kinds/alert.yaml')],
    { env: {} },
  );
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return resources;
}

async function plan(opts: { prune?: boolean; maxDeletes?: number } = {}) {
  return makePlan({
    port,
    inventory,
    desired: load(),
    sensitive: SENSITIVE_PATHS,
    selection: SELECT_ALL,
    prune: opts.prune ?? false,
    maxDeletes: opts.maxDeletes ?? 10,
  });
}

async function apply(opts: { prune?: boolean; maxDeletes?: number } = {}) {
  const planned = await plan(opts);
  const report = await applyPlanned(planned, { port, inventory, concurrency: 4 });
  return { planned, report };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-engine-'));
  cpSync('config-examples', dir, { recursive: true });
  port = inProcessPort(createObservabilityDomain({ seed: 'demo' }), 'self-hosted', 'test');
  inventory = memoryInventory('test');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('engine convergence against the sandbox rules', () => {
  it('applies the examples and then plans no changes', async () => {
    const { planned, report } = await apply();
    expect(planned.plan.errored).toBe(false);
    expect(planned.plan.summary.create).toBeGreaterThanOrEqual(4);
    expect(report.summary.failed).toBe(0);
    expect(report.results.flatMap((r) => r.nonConvergent ?? [])).toEqual([]);
    const again = await plan();
    expect(again.plan.steps.filter((s) => s.action !== 'noop')).toEqual([]);
  });

  it('updates one field as one change, and keeps the alerts on the dashboard tiles', async () => {
    await apply();
    const alertsBefore = await collectionOf(port, 'Alert').list();
    const file = join(dir, 'team/dashboards/checkout.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Error logs', 'name: Error log count'));
    const next = await plan();
    const changed = next.plan.steps.filter((s) => s.action !== 'noop');
    expect(changed.map((s) => [s.address, s.action, s.reason])).toEqual([['Dashboard/checkout', 'update', 'spec-changed']]);
    expect(changed[0]?.changes.map((c) => c.path)).toEqual(['tiles[error-logs].name']);
    const { report } = await apply();
    expect(report.summary.failed).toBe(0);
    const alertsAfter = await collectionOf(port, 'Alert').list();
    expect(alertsAfter.map((a) => a.id).sort()).toEqual(alertsBefore.map((a) => a.id).sort());
    expect((await plan()).plan.summary.update).toBe(0);
  });

  it('heals drift made outside obsync and reports it as drifted', async () => {
    await apply();
    const [dash] = (await collectionOf(port, 'Dashboard').list()).filter((d) => d.name === 'Checkout service');
    if (!dash) throw new Error('dashboard missing');
    await collectionOf(port, 'Dashboard').update(dash.id, { ...dash, tags: ['hand-edited'] } as never);
    const drift = await plan();
    const step = drift.plan.steps.find((s) => s.address === 'Dashboard/checkout');
    expect(step?.reason).toBe('drifted');
    expect(step?.changes.map((c) => c.path)).toContain('tags');
  });

  it('prunes only owned objects that left the manifests, never unowned ones', async () => {
    const unowned = await collectionOf(port, 'Dashboard').create({ name: 'Made by hand', tiles: [] });
    await apply();
    writeFileSync(join(dir, 'team/alerts/checkout.yaml'), '');
    writeFileSync(join(dir, 'kinds/alert.yaml'), '');
    const withoutPrune = await plan();
    expect(withoutPrune.plan.steps.filter((s) => s.action === 'delete')).toEqual([]);
    expect(withoutPrune.plan.prune.candidates.length).toBeGreaterThan(0);
    // Every Alert gone from the manifests: the empty-kind guard refuses.
    const guarded = await plan({ prune: true });
    expect(guarded.plan.prune.refused.join(' ')).toMatch(/no Alert is declared/);
    expect((await collectionOf(port, 'Dashboard').get(unowned.id))?.name).toBe('Made by hand');
  });
});
