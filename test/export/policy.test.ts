/**
 * Adoption policy `explicit` (issue 18): an existing object whose natural key a manifest matches
 * is not taken over silently; the plan names its id and `obsync import`. Once imported (or
 * adopted by export --adopt) it plans like any owned object; a lost create of obsync's own is
 * still found by its natural key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { Secret } from '../../src/core/secret.js';
import { readLive } from '../../src/engine/live.js';
import { makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { alertYaml } from '../support/reconcile.js';
import { importEntry } from '../../src/export/import.js';
import { openFileInventory } from '../../src/inventory/file-store.js';
import { dashboard } from '../../src/kinds/dashboard/definition.js';
import { REGISTRY } from '../../src/kinds/registry.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

let sandbox: SandboxHandle;
let port: ServicePort;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  port = createServicePort({
    name: 's',
    variant: 'self-hosted',
    baseUrl: sandbox.url,
    apiKey: new Secret(sandbox.credentials.apiKey),
    concurrency: 2,
    timeoutMs: 10_000,
    retries: 0,
    pacing: { limit: 0, windowMs: 1 },
    embedded: false,
  });
});
afterAll(async () => {
  await port.close();
  await sandbox.close();
});

const MANIFEST = `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: checkout}
spec:
  name: Checkout
  tiles: [{name: Notes, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: hello}}]
`;

describe('adopt: explicit', () => {
  it('refuses to take over an existing object by name, names its id and the import; plans it once imported', async () => {
    const made = await collectionOf(port, 'Dashboard').create({
      name: 'Checkout',
      tiles: [{ name: 'Notes', x: 0, y: 0, w: 6, h: 2, config: { displayType: 'markdown', markdown: 'hand made' } }],
    });
    const dir = mkdtempSync(join(tmpdir(), 'obsync-policy-'));
    const inventory = await openFileInventory({ dir: join(dir, 'state'), target: 's', lock: true });
    try {
      writeFileSync(join(dir, 'd.yaml'), MANIFEST);
      const { resources } = loadManifests([join(dir, 'd.yaml')], { env: {} });
      const plan = async (adopt: 'by-name' | 'explicit') =>
        (await makePlan({ port, inventory, desired: resources, selection: SELECT_ALL, prune: false, maxDeletes: 10, adopt })).plan;

      const byName = await plan('by-name');
      expect(byName.steps.map((s) => [s.address, s.action, s.adopt])).toEqual([['Dashboard/checkout', 'update', true]]);

      const explicit = await plan('explicit');
      expect(explicit.steps).toEqual([]);
      expect(explicit.diagnostics.map((d) => [d.address, d.code])).toEqual([['Dashboard/checkout', 'adoption-not-allowed']]);
      expect(explicit.diagnostics[0]?.message).toContain(`an existing dashboard (id ${made.id})`);
      expect(explicit.diagnostics[0]?.message).toContain(`obsync import Dashboard/checkout ${made.id}`);

      const live = await readLive(
        port,
        REGISTRY.filter((d) => port.collection(d.kind) !== null),
      );
      const { entry } = importEntry({
        def: dashboard,
        name: 'checkout',
        id: made.id,
        objects: (k) => live.objects(k),
        served: ['Dashboard'],
        entries: inventory.entries(),
        declared: true,
        now: new Date(),
      });
      await inventory.put(entry);
      const imported = await plan('explicit');
      expect(imported.diagnostics).toEqual([]);
      expect(imported.steps.map((s) => [s.address, s.action, s.adopt, s.changes.map((c) => c.path)])).toEqual([
        ['Dashboard/checkout', 'update', undefined, ['tiles.notes.config.markdown']],
      ]);

      // A pending entry (a create whose answer was lost) is no way around it: the hand-made object is not what was sent.
      await inventory.put({ ...entry, id: null, status: 'pending' });
      const lookalike = await plan('explicit');
      expect(lookalike.steps).toEqual([]);
      expect(lookalike.diagnostics.map((d) => d.code)).toEqual(['pending-unproven']);
      expect(lookalike.diagnostics[0]?.message).toContain(`obsync import Dashboard/checkout ${made.id}`);

      // A create of obsync's own whose answer was lost is still found by name: what was sent, from an unchanged manifest.
      const specHash = imported.steps[0]?.record?.specHash;
      expect(specHash).toBeTypeOf('string');
      await inventory.put({ ...entry, id: null, status: 'pending', ...(specHash ? { specHash } : {}) });
      await collectionOf(port, 'Dashboard').update(made.id, {
        name: 'Checkout',
        tiles: [{ name: 'Notes', x: 0, y: 0, w: 6, h: 2, config: { displayType: 'markdown', markdown: 'hello' } }],
      });
      const pending = await plan('explicit');
      expect(pending.diagnostics).toEqual([]);
      expect(pending.steps.map((s) => [s.address, s.action, s.id])).toEqual([['Dashboard/checkout', 'noop', made.id]]);
    } finally {
      await inventory.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not take it over through a selection either: an alert on it, planned alone with --only, waits for the import', async () => {
    const made = await collectionOf(port, 'Dashboard').create({
      name: 'Payments',
      tiles: [{ name: 'Notes', x: 0, y: 0, w: 6, h: 2, config: { displayType: 'markdown', markdown: 'hand made' } }],
    });
    const dir = mkdtempSync(join(tmpdir(), 'obsync-policy-'));
    const inventory = await openFileInventory({ dir: join(dir, 'state'), target: 's', lock: true });
    try {
      writeFileSync(
        join(dir, 'd.yaml'),
        `${MANIFEST.replace('{name: checkout}', '{name: payments}').replace('name: Checkout', 'name: Payments')}---\n` +
          alertYaml('payments-notes', 'payments', 'notes'),
      );
      const { resources, diagnostics } = loadManifests([join(dir, 'd.yaml')], { env: {} });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const only = { labels: {}, only: ['Alert/payments-notes' as const] };
      const plan = async (adopt: 'by-name' | 'explicit') =>
        (await makePlan({ port, inventory, desired: resources, selection: only, prune: false, maxDeletes: 10, adopt })).plan;
      // By name, the alert is created on the hand-made dashboard's tile.
      expect((await plan('by-name')).steps.map((s) => [s.address, s.action])).toEqual([['Alert/payments-notes', 'create']]);
      const explicit = await plan('explicit');
      expect(explicit.steps).toEqual([]);
      expect(explicit.diagnostics.map((d) => d.address)).toEqual(['Alert/payments-notes']);
      // Nothing is bound to the hand-made dashboard; the one mention of its id is the import to run.
      expect(JSON.stringify({ ...explicit, diagnostics: [] })).not.toContain(made.id);
      expect(explicit.diagnostics[0]?.message).toContain(`run \`obsync import Dashboard/payments ${made.id}\``);
    } finally {
      await inventory.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
