/**
 * Soak (short form; `npm run soak` runs a long one): many reconcile passes against a sandbox
 * injecting 5xx, 429 bursts, resets before and after commit and latency, while the manifests
 * (every kind the variant serves, on both variants at once) change between passes. At the end
 * the service equals the manifests exactly, with no duplicate and no unowned object touched.
 */
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
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
import { connectionSpecSchema } from '../../src/kinds/connection/schema.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { pipeSpecSchema } from '../../src/kinds/pipe/schema.js';
import { savedSearchSpecSchema } from '../../src/kinds/saved-search/schema.js';
import { sourceSpecSchema } from '../../src/kinds/source/schema.js';
import { webhookSpecSchema } from '../../src/kinds/webhook/schema.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

const RUNS = Number(process.env.OBSYNC_SOAK_RUNS ?? 12);

type Variant = 'hosted' | 'self-hosted';

function res(kind: DesiredResource['kind'], name: string, spec: unknown): DesiredResource {
  return { kind, name, address: `${kind}/${name}`, labels: {}, spec, source: { file: 'soak.yaml', line: 1, col: 1 } };
}

/** A desired state that changes with the run number: objects of every kind come and go, fields and secrets move. */
function desiredFor(run: number, variant: Variant): DesiredResource[] {
  const out: DesiredResource[] = [...otherKinds(run, variant)];
  for (let i = 0; i < 6; i++) {
    if ((i + run) % 5 === 0 && i > 2) continue;
    const name = `svc-${i}`;
    out.push(
      res(
        'Dashboard',
        name,
        dashboardSpecSchema.parse({
          name: `Service ${i}`,
          tags: [`run-${run % 3}`],
          tiles: [
            {
              key: 'lat',
              name: 'Latency',
              x: 0,
              y: 0,
              w: 12,
              h: 4,
              config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'avg', valueExpression: 'Duration' }] },
            },
            ...(run % 2 === 0
              ? [
                  {
                    key: 'err',
                    name: 'Errors',
                    x: 12,
                    y: 0,
                    w: 12,
                    h: 4,
                    config: { displayType: 'number', source: 'soak-logs', select: [{ aggFn: 'count', where: 'level:error' }] },
                  },
                ]
              : []),
          ],
        }),
      ),
    );
    out.push(
      res(
        'Alert',
        `${name}-slow`,
        alertSpecSchema.parse({
          dashboard: name,
          tile: 'lat',
          threshold: 100 + run,
          thresholdType: 'above',
          interval: '5m',
          channel: { type: 'webhook', webhook: 'ops-slack' },
          name: `${name} slow`,
        }),
      ),
    );
  }
  return out;
}

/** Webhooks, sources, a saved search and its alert, a pipe (hosted) or a connection (self-hosted). */
function otherKinds(run: number, variant: Variant): DesiredResource[] {
  const out: DesiredResource[] = [];
  const slackPresent = run % 3 !== 1;
  out.push(
    res(
      'Webhook',
      'hook-a',
      webhookSpecSchema.parse({
        service: 'generic',
        name: 'Soak A',
        url: `https://example.com/soak/a-${run % 2}-9f1e`,
        headers: { 'X-Soak': `soak-header-${run % 3}-4c2d` },
        description: `run ${run % 4}`,
      }),
    ),
  );
  if (slackPresent)
    out.push(
      res(
        'Webhook',
        'hook-b',
        webhookSpecSchema.parse({ service: 'slack', name: 'Soak B', url: 'https://hooks.slack.com/services/T9/B9/soak-7a6b' }),
      ),
    );
  const connection = variant === 'hosted' ? { id: '5eed00000000000000000002' } : 'soak-ch';
  if (variant === 'self-hosted')
    out.push(
      res(
        'Connection',
        'soak-ch',
        connectionSpecSchema.parse({
          name: 'Soak CH',
          host: 'http://ch-soak:8123',
          username: 'soak',
          password: `soak-password-${run % 2}-8e3f`,
          hyperdxSettingPrefix: run % 2 === 0 ? 'hdx' : undefined,
        }),
      ),
    );
  const from = { databaseName: 'default', tableName: 'soak_logs' };
  out.push(
    res(
      'Source',
      'soak-logs',
      sourceSpecSchema.parse({
        kind: 'log',
        name: 'Soak logs',
        connection,
        from,
        timestampValueExpression: 'TimestampTime',
        defaultTableSelectExpression: 'Body',
        serviceNameExpression: run % 2 === 0 ? 'ServiceName' : '',
        traceSource: 'Traces',
      }),
    ),
  );
  out.push(
    res(
      'Source',
      'soak-metrics',
      sourceSpecSchema.parse({
        kind: 'metric',
        name: 'Soak metrics',
        connection,
        from: { databaseName: 'default', tableName: '' },
        timestampValueExpression: 'TimeUnix',
        resourceAttributesExpression: 'ResourceAttributes',
        metricTables: { gauge: 'g', sum: run % 2 === 0 ? 's' : undefined },
        logSource: 'soak-logs',
      }),
    ),
  );
  out.push(
    res(
      'SavedSearch',
      'soak-search',
      savedSearchSpecSchema.parse({ name: 'Soak search', source: 'soak-logs', where: `level:error AND run:${run % 3}`, tags: ['soak'] }),
    ),
  );
  out.push(
    res(
      'Alert',
      'soak-search-alert',
      alertSpecSchema.parse({
        savedSearch: 'soak-search',
        threshold: run,
        thresholdType: 'above',
        interval: '15m',
        channel: { type: 'webhook', webhook: slackPresent && run % 2 === 0 ? 'hook-b' : 'hook-a' },
        name: 'Soak search alert',
      }),
    ),
  );
  if (variant === 'hosted')
    out.push(
      res(
        'Pipe',
        'orders',
        pipeSpecSchema.parse({ name: 'orders-kafka', settings: { streaming_max_insert_wait_ms: 1000 + 500 * (run % 3) } }),
      ),
    );
  return out;
}

function portFor(variant: Variant, sandbox: SandboxHandle): ServicePort {
  const c = sandbox.credentials;
  const common = {
    baseUrl: sandbox.url,
    concurrency: 4,
    timeoutMs: 5_000,
    retries: 3,
    pacing: { limit: 0, windowMs: 1 },
    embedded: false,
  } as const;
  return variant === 'hosted'
    ? createServicePort({
        ...common,
        name: 'soak',
        variant: 'hosted',
        organizationId: c.organizationId,
        serviceId: c.serviceId,
        keyId: c.keyId,
        keySecret: new Secret(c.keySecret),
        paths: { observability: 'observability', pipes: 'pipes' },
      })
    : createServicePort({ ...common, name: 'soak', variant: 'self-hosted', apiKey: new Secret(c.apiKey) });
}

/** Each natural key at most once: no duplicate was made by a retried or lost create. */
function expectUnique(values: string[]): void {
  expect(values.filter((v, i) => values.indexOf(v) !== i)).toEqual([]);
}

describe('soak under injected faults', () => {
  it.concurrent.each(['hosted', 'self-hosted'] as const)(
    `converges exactly after ${RUNS} faulty passes (%s, every kind it serves)`,
    async (variant) => {
      const sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 10 });
      const state = mkdtempSync(join(tmpdir(), 'obsync-soak-'));
      const port = portFor(variant, sandbox);
      const inventory = await openFileInventory({ dir: state, target: 'soak', lock: true });
      try {
        const unowned = await collectionOf(port, 'Dashboard').create({ name: 'Hand made', tiles: [] });
        const pass = async (run: number, prune: boolean) => {
          const planned = await makePlan({
            port,
            inventory,
            desired: desiredFor(run, variant),
            sensitive: SENSITIVE_PATHS,
            selection: SELECT_ALL,
            prune,
            maxDeletes: 20,
          });
          return applyPlanned(planned, { port, inventory, concurrency: 4 });
        };
        let failedPasses = 0;
        for (let run = 0; run < RUNS; run++) {
          sandbox.faults.set({
            seed: run + 1,
            latencyMs: 2,
            error5xx: 0.08,
            resetBefore: 0.04,
            resetAfter: 0.06,
            ...(run % 4 === 1 ? { burst429: 3 } : {}),
          });
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
        const final = await makePlan({
          port,
          inventory,
          desired: desiredFor(last, variant),
          sensitive: SENSITIVE_PATHS,
          selection: SELECT_ALL,
          prune: true,
          maxDeletes: 20,
        });
        expect(final.plan.steps.filter((s) => s.action !== 'noop').map((s) => `${s.action} ${s.address}`)).toEqual([]);
        expect(final.plan.diagnostics).toEqual([]);
        const kinds = new Set(desiredFor(last, variant).map((r) => r.kind));
        expect(kinds.size).toBe(6);

        const dashboards = await collectionOf(port, 'Dashboard').list();
        const names = dashboards.map((d) => d.name);
        expectUnique(names);
        expect(names).toContain('Hand made');
        expect(dashboards.find((d) => d.id === unowned.id)).toBeDefined();
        const wanted = desiredFor(last, variant).filter((r) => r.kind === 'Dashboard').length;
        expect(names.length).toBe(wanted + 1);
        const alerts = await collectionOf(port, 'Alert').list();
        expectUnique(alerts.map((a) => `${a.dashboardId ?? a.savedSearchId ?? ''}|${a.name ?? ''}`));
        const webhooks = await collectionOf(port, 'Webhook').list();
        expectUnique(webhooks.map((w) => `${w.service}|${w.name}`));
        expect(webhooks.map((w) => w.name)).toEqual(expect.arrayContaining(['ops-slack', 'ops-webhook', 'Soak A']));
        const sources = (await collectionOf(port, 'Source').list()).map((x) => x.name);
        expectUnique(sources);
        expect(sources.sort()).toEqual(['Logs', 'Metrics', 'Soak logs', 'Soak metrics', 'Traces']);
        const searches = (await collectionOf(port, 'SavedSearch').list()).map((x) => x.name);
        expect(searches.sort()).toEqual(['Errors', 'Soak search']);
        if (variant === 'self-hosted')
          expect((await collectionOf(port, 'Connection').list()).map((x) => x.name).sort()).toEqual(['Default', 'Soak CH']);
        const injected = Object.values(sandbox.faults.injected).reduce((a, b) => a + b, 0);
        expect(injected).toBeGreaterThan(RUNS);
        console.info(
          `soak (${variant}): ${RUNS} passes, ${injected} faults injected ${JSON.stringify(sandbox.faults.injected)}, ${failedPasses} ` +
            `passes with failures, converged`,
        );
      } finally {
        await inventory.close();
        await port.close();
        await sandbox.close();
        rmSync(state, { recursive: true, force: true });
      }
    },
  );
});
