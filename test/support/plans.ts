/**
 * Real plans for the renderers' tests: the sandbox on loopback (either variant), the real client,
 * a file inventory and manifests loaded as the CLI loads them, run through `reconcile()`. The
 * scenario walks through what a reviewer meets — creates, spec changes, drift, an adoption, a
 * prune, an unplannable object, a secret — so every output is tested on what obsync produces,
 * never on hand-made JSON.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InventoryStore } from '../../src/core/inventory.js';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import type { Variant } from '../../src/core/ports.js';
import { reconcile, type RunReport } from '../../src/engine/reconcile.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { openFileInventory } from '../../src/inventory/file-store.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { sandboxTarget } from '../../src/sandbox/target.js';

export const PIPE_SECRET = 'plan-fixture-secret-key-4417';

export class PlanFixture {
  inventory!: InventoryStore;
  readonly dir = mkdtempSync(join(tmpdir(), 'obsync-plans-'));

  private constructor(
    readonly sandbox: SandboxHandle,
    readonly port: ServicePort,
    readonly variant: Variant,
  ) {}

  static async start(variant: Variant): Promise<PlanFixture> {
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 5 });
    const port = createServicePort(
      sandboxTarget(variant, sandbox, {
        name: `sandbox-${variant}`,
        concurrency: 2,
        timeoutMs: 10_000,
        retries: 0,
        pacing: { limit: 0, windowMs: 1 },
        embedded: false,
        paths: { observability: 'observability', pipes: 'pipes' },
      }),
    );
    const fixture = new PlanFixture(sandbox, port, variant);
    fixture.inventory = await openFileInventory({ dir: join(fixture.dir, 'state'), target: port.target, lock: true });
    return fixture;
  }

  /** Replaces the manifests with these YAML files (name → text). */
  manifests(files: Record<string, string>): void {
    rmSync(join(this.dir, 'manifests'), { recursive: true, force: true });
    mkdirSync(join(this.dir, 'manifests'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(this.dir, 'manifests', name), text);
  }

  run(mode: 'plan' | 'apply', opts: { prune?: boolean; unchangedForms?: boolean } = {}): Promise<RunReport> {
    const { resources, diagnostics } = loadManifests([join(this.dir, 'manifests')], { env: { PIPE_SECRET } });
    const invalid = diagnostics.filter((d) => d.severity === 'error');
    if (invalid.length > 0) throw new Error(`fixture manifests are invalid: ${JSON.stringify(invalid)}`);
    return reconcile({
      mode,
      port: this.port,
      inventory: this.inventory,
      desired: resources,
      selection: SELECT_ALL,
      prune: opts.prune ?? false,
      pruneCascade: false,
      maxDeletes: 10,
      concurrency: 2,
      ...(opts.unchangedForms ? { unchangedForms: true } : {}),
    });
  }

  async close(): Promise<void> {
    await this.inventory.close();
    await this.port.close();
    await this.sandbox.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function dashboardYaml(
  name: string,
  display: string,
  tiles: readonly { key: string; name?: string; x?: number; y?: number; w?: number; level?: number }[],
): string {
  const body = tiles
    .map((t, i) => {
      const select =
        t.level === undefined
          ? '{aggFn: avg, valueExpression: Duration}'
          : `{aggFn: quantile, level: ${t.level}, valueExpression: Duration}`;
      return (
        `    - {key: ${t.key}, name: ${JSON.stringify(t.name ?? t.key)}, x: ${t.x ?? (i * 6) % 24}, y: ` +
        `${t.y ?? Math.floor(i / 4) * 4}, w: ${t.w ?? 6}, h: 4, config: {displayType: line, source: Traces, select: [${select}]}}`
      );
    })
    .join('\n');
  return (
    `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec:\n  name: ${display}\n  tags: [reviewed]\n  ` +
    `tiles:\n${body}\n`
  );
}

export function alertYaml(
  name: string,
  opts: { dashboard: string; tile: string; threshold: number; interval: string; webhook: string },
): string {
  return (
    `apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: ${name}}\nspec: {dashboard: ${opts.dashboard}, tile: ${opts.tile}, ` +
    `threshold: ${opts.threshold}, thresholdType: above, interval: ${opts.interval}, channel: {type: webhook, webhook: ` +
    `${opts.webhook}}, name: ${name}}\n`
  );
}

export const PIPE = `apiVersion: obsync/v1
kind: Pipe
metadata: {name: events-s3}
spec:
  name: events-s3
  scaling: {replicas: 2}
  source:
    objectStorage:
      authentication: IAM_USER
      accessKey: {accessKeyId: AKIAFIXTURE, secretKey: "\${env:PIPE_SECRET}"}
`;

/** The reports a reviewer meets, in order, from one sandbox of the variant. */
export interface ScenarioReports {
  /** Everything new; a dashboard made by hand is adopted; (hosted) a pipe with a secret is adopted. */
  create: RunReport;
  /** The first apply. */
  apply: RunReport;
  /** A manifest changed (tile moved, resized, query; alert threshold, interval, channel), another drifted on the service. */
  update: RunReport;
  /** A dashboard left the manifests: pruned. */
  prune: RunReport;
  /** That prune applied. */
  pruneApply: RunReport;
  /** An alert names a webhook the service does not have; a new dashboard beside it. */
  error: RunReport;
  /** Nothing to do. */
  unchanged: RunReport;
}

export async function scenario(variant: Variant): Promise<ScenarioReports> {
  const f = await PlanFixture.start(variant);
  try {
    // A dashboard made by hand, with the display name a manifest declares: adopted, not duplicated.
    await collectionOf(f.port, 'Dashboard').create({ name: 'Legacy board', tiles: [], tags: ['hand-made'] });
    const checkout = dashboardYaml('checkout', 'Checkout service', [
      { key: 'p99', name: 'p99 latency', level: 0.99 },
      { key: 'errors', name: 'Errors' },
      { key: 'rps', name: 'Requests' },
    ]);
    const base: Record<string, string> = {
      'checkout.yaml': checkout,
      'legacy.yaml': dashboardYaml('legacy', 'Legacy board', [{ key: 'a', name: 'A' }]),
      'scratch.yaml': dashboardYaml('scratch', 'Scratch', [{ key: 's', name: 'S' }]),
      'alert.yaml': alertYaml('checkout-p99', { dashboard: 'checkout', tile: 'p99', threshold: 500, interval: '5m', webhook: 'ops-slack' }),
      ...(variant === 'hosted' ? { 'pipe.yaml': PIPE } : {}),
    };
    f.manifests(base);
    const create = await f.run('plan');
    const apply = await f.run('apply');

    const changedCheckout = dashboardYaml('checkout', 'Checkout service', [
      { key: 'p99', name: 'p99 latency', level: 0.95, w: 12 },
      { key: 'errors', name: 'Errors', x: 12, y: 4 },
      { key: 'latency', name: 'Latency' },
    ]);
    const changedAlert = alertYaml('checkout-p99', {
      dashboard: 'checkout',
      tile: 'p99',
      threshold: 400,
      interval: '1m',
      webhook: 'ops-webhook',
    });
    f.manifests({ ...base, 'checkout.yaml': changedCheckout, 'alert.yaml': changedAlert });
    // Drift: someone renamed the scratch dashboard by hand.
    const scratch = (await collectionOf(f.port, 'Dashboard').list()).find((d) => d.name === 'Scratch');
    if (scratch)
      await collectionOf(f.port, 'Dashboard').update(scratch.id, {
        name: 'Scratch (edited by hand)',
        tiles: scratch.tiles,
        tags: scratch.tags,
      } as never);
    const update = await f.run('plan');
    await f.run('apply');

    const rest: Record<string, string> = { ...base, 'checkout.yaml': changedCheckout, 'alert.yaml': changedAlert };
    delete rest['scratch.yaml'];
    f.manifests(rest);
    const prune = await f.run('plan', { prune: true });
    const pruneApply = await f.run('apply', { prune: true });
    f.manifests({
      ...rest,
      'extra.yaml': dashboardYaml('extra', 'Extra', [{ key: 'e', name: 'E' }]),
      'broken-alert.yaml': alertYaml('broken', {
        dashboard: 'checkout',
        tile: 'p99',
        threshold: 1,
        interval: '5m',
        webhook: 'no-such-webhook',
      }),
    });
    const error = await f.run('plan');
    f.manifests(rest);
    const unchanged = await f.run('plan');
    return { create, apply, update, prune, pruneApply, error, unchanged };
  } finally {
    await f.close();
  }
}
