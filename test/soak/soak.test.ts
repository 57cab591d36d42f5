/**
 * Soak (short form; `npm run soak` runs a long one): many reconcile passes against a sandbox
 * injecting 5xx, 429 bursts, resets before and after commit and latency, while the manifests
 * change between passes. At the end the service equals the manifests exactly, with no duplicate
 * and no unowned object touched.
 */
import { requireCollection } from '../../src/core/ports.js';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/core/resource.js';
import { Secret } from '../../src/core/secret.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { openFileInventory } from '../../src/inventory/file-store.js';
import { alertSpecSchema } from '../../src/kinds/alert/schema.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox } from '../../src/sandbox/index.js';

const RUNS = Number(process.env.OBSYNC_SOAK_RUNS ?? 12);

function res(kind: 'Dashboard' | 'Alert', name: string, spec: unknown): DesiredResource {
  return { kind, name, address: `${kind}/${name}`, labels: {}, spec, source: { file: 'soak.yaml', line: 1, col: 1 } };
}

/** A desired state that changes with the run number: dashboards come and go, thresholds move. */
function desiredFor(run: number): DesiredResource[] {
  const out: DesiredResource[] = [];
  for (let i = 0; i < 6; i++) {
    if ((i + run) % 5 === 0 && i > 2) continue;
    const name = `svc-${i}`;
    out.push(
      res('Dashboard', name, dashboardSpecSchema.parse({
        name: `Service ${i}`,
        tags: [`run-${run % 3}`],
        tiles: [
          { key: 'lat', name: 'Latency', x: 0, y: 0, w: 12, h: 4, config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'avg', valueExpression: 'Duration' }] } },
          ...(run % 2 === 0 ? [{ key: 'err', name: 'Errors', x: 12, y: 0, w: 12, h: 4, config: { displayType: 'number', source: 'Logs', select: [{ aggFn: 'count', where: 'level:error' }] } }] : []),
        ],
      })),
    );
    out.push(res('Alert', `${name}-slow`, alertSpecSchema.parse({ dashboard: name, tile: 'lat', threshold: 100 + run, thresholdType: 'above', interval: '5m', channel: { type: 'webhook', webhook: 'ops-slack' }, name: `${name} slow` })));
  }
  return out;
}

describe('soak under injected faults', () => {
  it(`converges exactly after ${RUNS} faulty passes`, async () => {
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    const state = mkdtempSync(join(tmpdir(), 'obsync-soak-'));
    const c = sandbox.credentials;
    const port = createServicePort({
      name: 'soak', variant: 'hosted', baseUrl: sandbox.url, organizationId: c.organizationId, serviceId: c.serviceId, keyId: c.keyId, keySecret: new Secret(c.keySecret),
      paths: { observability: 'observability', pipes: 'pipes' }, concurrency: 4, timeoutMs: 5_000, retries: 3, pacing: { limit: 0, windowMs: 1 }, embedded: false,
    });
    const inventory = await openFileInventory({ dir: state, target: 'soak', lock: true });
    try {
      const unowned = await requireCollection(port, 'Dashboard').create({ name: 'Hand made', tiles: [] });
      const pass = async (run: number, prune: boolean) => {
        const planned = await makePlan({ port, inventory, desired: desiredFor(run), sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune, maxDeletes: 20 });
        return applyPlanned(planned, { port, inventory, concurrency: 4 });
      };
      let failedPasses = 0;
      for (let run = 0; run < RUNS; run++) {
        sandbox.faults.set({ seed: run + 1, latencyMs: 2, error5xx: 0.08, resetBefore: 0.04, resetAfter: 0.06, ...(run % 4 === 1 ? { burst429: 3 } : {}) });
        try {
          const report = await pass(run, true);
          if (report.summary.failed > 0) failedPasses += 1;
        } catch {
          failedPasses += 1;
        }
      }
      sandbox.faults.clear();
      const last = RUNS - 1;
      await pass(last, true);
      const final = await makePlan({ port, inventory, desired: desiredFor(last), sensitive: SENSITIVE_PATHS, selection: SELECT_ALL, prune: true, maxDeletes: 20 });
      expect(final.plan.steps.filter((s) => s.action !== 'noop').map((s) => `${s.action} ${s.address}`)).toEqual([]);

      const dashboards = await requireCollection(port, 'Dashboard').list();
      const names = dashboards.map((d) => d.name);
      expect(new Set(names).size).toBe(names.length);
      expect(names).toContain('Hand made');
      expect(dashboards.find((d) => d.id === unowned.id)).toBeDefined();
      const wanted = desiredFor(last).filter((r) => r.kind === 'Dashboard').length;
      expect(names.length).toBe(wanted + 1);
      const alerts = await requireCollection(port, 'Alert').list();
      expect(new Set(alerts.map((a) => `${a.dashboardId ?? ''}|${a.name ?? ''}`)).size).toBe(alerts.length);
      const injected = Object.values(sandbox.faults.injected).reduce((a, b) => a + b, 0);
      expect(injected).toBeGreaterThan(RUNS);
      console.info(`soak: ${RUNS} passes, ${injected} faults injected ${JSON.stringify(sandbox.faults.injected)}, ${failedPasses} passes with failures, converged`);
    } finally {
      await inventory.close();
      await port.close();
      await sandbox.close();
      rmSync(state, { recursive: true, force: true });
    }
  });
});
