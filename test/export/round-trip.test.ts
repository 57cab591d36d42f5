/**
 * Issue 18, in process: a realistic estate seeded through the API on both variants exports to
 * manifests that validate and plan to zero changes against the same target; --adopt then owns
 * every exported object with zero writes, and prune deletes exactly a removed manifest's object.
 * Exported files never hold a secret value.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { Secret } from '../../src/core/secret.js';
import { readLive } from '../../src/engine/live.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { adoptExported } from '../../src/export/adopt.js';
import { makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { exportLive, type ExportResult } from '../../src/export/exporter.js';
import { openFileInventory } from '../../src/inventory/file-store.js';
import { REGISTRY } from '../../src/kinds/registry.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { seedEstate, type Estate } from '../support/estate.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
});
afterAll(() => sandbox.close());

function portFor(variant: 'hosted' | 'self-hosted'): ServicePort {
  const c = sandbox.credentials;
  const common = {
    baseUrl: sandbox.url,
    concurrency: 4,
    timeoutMs: 10_000,
    retries: 0,
    pacing: { limit: 0, windowMs: 1 },
    embedded: false,
  };
  return variant === 'hosted'
    ? createServicePort({
        ...common,
        name: 'h',
        variant: 'hosted',
        organizationId: c.organizationId,
        serviceId: c.serviceId,
        keyId: c.keyId,
        keySecret: new Secret(c.keySecret),
        paths: { observability: 'clickstack', pipes: 'clickpipes' },
      })
    : createServicePort({ ...common, name: 's', variant: 'self-hosted', apiKey: new Secret(c.apiKey) });
}

async function exportFrom(port: ServicePort): Promise<ExportResult> {
  const live = await readLive(
    port,
    REGISTRY.filter((d) => port.collection(d.kind) !== null),
  );
  return exportLive({ objects: (k) => live.objects(k), owned: [] });
}

function writeTree(dir: string, result: ExportResult): void {
  for (const m of result.manifests) {
    mkdirSync(dirname(join(dir, m.file)), { recursive: true });
    writeFileSync(join(dir, m.file), m.text);
  }
}

describe.each(['self-hosted', 'hosted'] as const)('export on the %s variant', (variant) => {
  let estate: Estate;
  let port: ServicePort;
  beforeAll(async () => {
    port = portFor(variant);
    estate = await seedEstate(port, variant, { tag: variant === 'hosted' ? 'h' : 's' });
  });
  afterAll(() => port.close());

  it(
    'plans the exported tree to zero changes, adopts it with zero ' + 'writes, prunes exactly a removed manifest; no secret written',
    async () => {
      const result = await exportFrom(port);
      const dir = mkdtempSync(join(tmpdir(), 'obsync-export-'));
      const inventory = await openFileInventory({ dir: join(dir, '.state'), target: 't', lock: true });
      try {
        writeTree(join(dir, 'm'), result);
        const env = Object.fromEntries(result.variables.map((v) => [v.name, v.value]));
        const load = () => {
          const loaded = loadManifests([join(dir, 'm')], { env });
          expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
          return loaded.resources;
        };
        const resources = load();
        expect(resources.length).toBe(result.manifests.length);
        expect(resources.length).toBeGreaterThan(40);

        // Without ownership: no change anywhere; only objects sharing a natural key cannot be matched yet.
        const before = await makePlan({ port, inventory, desired: resources, selection: SELECT_ALL, prune: false, maxDeletes: 10 });
        expect(before.plan.steps.filter((s) => s.action !== 'noop').map((s) => ({ address: s.address, changes: s.changes }))).toEqual([]);
        expect(result.sharedKeys.length).toBeGreaterThan(0);
        for (const d of before.plan.diagnostics)
          expect(d.code === 'ambiguous-adoption' ? result.sharedKeys : ['dependency-failed']).toContain(
            d.code === 'ambiguous-adoption' ? d.address : d.code,
          );

        // --adopt: every exported object owned, nothing written.
        sandbox.clearRequests();
        await adoptExported({ port, inventory, desired: resources, exported: result.manifests, concurrency: 4, now: new Date() });
        expect(
          inventory
            .entries()
            .map((e) => e.id)
            .sort(),
        ).toEqual(result.manifests.map((m) => m.id).sort());
        const apply = await reconcile({
          mode: 'apply',
          port,
          inventory,
          desired: resources,
          selection: SELECT_ALL,
          prune: false,
          maxDeletes: 10,
          concurrency: 4,
        });
        expect(apply.plan.diagnostics).toEqual([]);
        expect(apply.plan.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
        expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

        // One manifest removed: prune deletes exactly its object.
        const watched = new Set(result.manifests.filter((m) => m.kind === 'Alert').map((m) => m.spec.dashboard));
        const doomed = result.manifests.find((m) => m.kind === 'Dashboard' && !watched.has(m.name));
        if (!doomed) throw new Error('no dashboard without alerts exported');
        rmSync(join(dir, 'm', doomed.file));
        const pruned = await makePlan({ port, inventory, desired: load(), selection: SELECT_ALL, prune: true, maxDeletes: 10 });
        expect(pruned.plan.steps.filter((s) => s.action !== 'noop').map((s) => `${s.action} ${s.address}`)).toEqual([
          `delete ${doomed.address}`,
        ]);

        for (const m of result.manifests) for (const s of estate.secrets) expect(m.text, `${m.file} holds a secret`).not.toContain(s);
      } finally {
        await inventory.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('--adopt records nothing when the exported tree would change an object', async () => {
    const result = await exportFrom(port);
    const dir = mkdtempSync(join(tmpdir(), 'obsync-export-'));
    const inventory = await openFileInventory({ dir: join(dir, '.state'), target: 't', lock: true });
    try {
      const edited = result.manifests.find(
        (m) => m.kind === 'Dashboard' && !result.sharedKeys.includes(m.address) && /^ {6}w: 12$/m.test(m.text),
      );
      if (!edited) throw new Error('no dashboard to edit');
      writeTree(join(dir, 'm'), {
        ...result,
        manifests: result.manifests.map((m) => (m === edited ? { ...m, text: m.text.replace(/^ {6}w: 12$/m, '      w: 11') } : m)),
      });
      const env = Object.fromEntries(result.variables.map((v) => [v.name, v.value]));
      const { resources, diagnostics } = loadManifests([join(dir, 'm')], { env });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      sandbox.clearRequests();
      await expect(
        adoptExported({ port, inventory, desired: resources, exported: result.manifests, concurrency: 2, now: new Date() }),
      ).rejects.toThrow(new RegExp(`${edited.address}: update \\(tiles\\[[a-z0-9-]+\\]\\.w\\)`));
      expect(inventory.entries()).toEqual([]);
      expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    } finally {
      await inventory.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
