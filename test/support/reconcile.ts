/**
 * A target for trust tests: the sandbox server on loopback (self-hosted variant), the real
 * client, a file inventory, and manifests written as YAML files then loaded like the CLI does.
 * Runs go through `reconcile()`, the path plan, apply and the daemon share.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { InventoryStore } from '../../src/core/inventory.js';
import type { Kind, Plan } from '../../src/core/plan.js';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { Secret } from '../../src/core/secret.js';
import type { WireAlert, WireDashboard } from '../../src/core/wire.js';
import { reconcile, type ReconcileRequest, type RunReport } from '../../src/engine/reconcile.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { openFileInventory } from '../../src/inventory/file-store.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

export interface RunFlags {
  mode?: 'plan' | 'apply';
  prune?: boolean;
  pruneCascade?: boolean;
  maxDeletes?: number;
  allowEmptyKinds?: Kind[];
  /** Apply this saved plan (as `obsync apply plan.json`). */
  saved?: Plan;
  /** Backtest the plan's alerts (off unless given, as in the engine). */
  backtest?: ReconcileRequest['backtest'];
  /** Tell the run which files declare nothing, and record each object's file (as the CLI and the daemon do). */
  files?: boolean;
}

export class TrustHarness {
  inventory!: InventoryStore;

  private constructor(
    readonly sandbox: SandboxHandle,
    readonly port: ServicePort,
    readonly dir: string,
  ) {}

  /** `via`: the address obsync talks to instead of the sandbox's own (a hostile proxy in front of it). */
  static async start(opts: { via?: (sandbox: SandboxHandle) => Promise<string> } = {}): Promise<TrustHarness> {
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    const port = createServicePort({
      name: 'sb',
      variant: 'self-hosted',
      baseUrl: opts.via ? await opts.via(sandbox) : sandbox.url,
      apiKey: new Secret(sandbox.credentials.apiKey),
      concurrency: 2,
      timeoutMs: 10_000,
      retries: 0,
      pacing: { limit: 0, windowMs: 1 },
      embedded: false,
    });
    const harness = new TrustHarness(sandbox, port, mkdtempSync(join(tmpdir(), 'obsync-trust-')));
    mkdirSync(join(harness.dir, 'manifests'));
    await harness.openInventory();
    return harness;
  }

  get stateDir(): string {
    return join(this.dir, 'state');
  }

  get backupDir(): string {
    return join(this.stateDir, 'backups');
  }

  async openInventory(): Promise<void> {
    this.inventory = await openFileInventory({ dir: this.stateDir, target: 'sb', lock: true });
  }

  /** The state directory wiped, as on a fresh CI runner or a lost volume. */
  async loseInventory(): Promise<void> {
    await this.inventory.close();
    rmSync(this.stateDir, { recursive: true, force: true });
    await this.openInventory();
  }

  /** Replaces the manifests with these YAML files (name → text). */
  manifests(files: Record<string, string>): void {
    rmSync(join(this.dir, 'manifests'), { recursive: true, force: true });
    mkdirSync(join(this.dir, 'manifests'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(this.dir, 'manifests', name), text);
  }

  run(flags: RunFlags = {}): Promise<RunReport> {
    const { resources, diagnostics, emptyFiles } = loadManifests([join(this.dir, 'manifests')], { env: {} });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return reconcile({
      mode: flags.mode ?? 'apply',
      port: this.port,
      inventory: this.inventory,
      desired: resources,
      ...(flags.files ? { manifests: { root: this.dir, empty: emptyFiles } } : {}),
      selection: SELECT_ALL,
      prune: flags.prune ?? false,
      pruneCascade: flags.pruneCascade ?? false,
      maxDeletes: flags.maxDeletes ?? 10,
      ...(flags.allowEmptyKinds ? { allowEmptyKinds: flags.allowEmptyKinds } : {}),
      ...(flags.saved ? { saved: flags.saved } : {}),
      identity: { name: 'sb', variant: 'self-hosted', baseUrl: this.sandbox.url },
      ...(flags.backtest ? { backtest: flags.backtest } : {}),
      concurrency: 2,
    });
  }

  dashboards(): Promise<WireDashboard[]> {
    return collectionOf(this.port, 'Dashboard').list();
  }

  alerts(): Promise<WireAlert[]> {
    return collectionOf(this.port, 'Alert').list();
  }

  async dashboard(name: string): Promise<WireDashboard> {
    const found = (await this.dashboards()).find((d) => d.name === name);
    if (!found) throw new Error(`no dashboard named ${name}`);
    return found;
  }

  /** An alert made by hand on a tile of a dashboard: obsync does not own it, no manifest declares it. */
  async handMadeAlert(dashboard: WireDashboard, tileName: string, name: string): Promise<WireAlert> {
    const tile = dashboard.tiles.find((t) => t.name === tileName);
    if (!tile) throw new Error(`no tile ${tileName}`);
    const webhook = (await collectionOf(this.port, 'Webhook').list()).find((w) => w.name === 'ops-slack');
    if (!webhook) throw new Error('no ops-slack webhook in the sandbox');
    return collectionOf(this.port, 'Alert').create({
      source: 'tile',
      dashboardId: dashboard.id,
      tileId: tile.id,
      name,
      threshold: 1,
      thresholdType: 'above',
      interval: '5m',
      channels: [{ type: 'webhook', webhookId: webhook.id }],
    });
  }

  /** Every backup file's text. */
  backups(): string[] {
    if (!existsSync(this.backupDir)) return [];
    const files = readdirSync(this.backupDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    return files.map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
  }

  async close(): Promise<void> {
    await this.inventory.close();
    await this.port.close();
    await this.sandbox.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A dashboard manifest with line tiles (alertable) named after their keys. */
export function dashboardYaml(name: string, display: string, tiles: { key: string; display?: 'line' | 'table' }[]): string {
  const body = tiles
    .map((t, i) => {
      const config =
        t.display === 'table'
          ? '{displayType: table, source: Traces, select: [{aggFn: count}], groupBy: SpanName}'
          : '{displayType: line, source: Traces, select: [{aggFn: avg, valueExpression: Duration}]}';
      return `    - {key: ${t.key}, name: ${t.key}, x: ${(i * 6) % 24}, y: 0, w: 6, h: 4, config: ${config}}`;
    })
    .join('\n');
  return `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec:\n  name: ${display}\n  tiles:\n${body}\n`;
}

export function alertYaml(name: string, dashboard: string, tile: string): string {
  return (
    `apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: ${name}}\nspec: {dashboard: ${dashboard}, tile: ${tile}, threshold: 100, ` +
    `thresholdType: above, interval: 5m, channel: {type: webhook, webhook: ops-slack}, name: ${name}}\n`
  );
}
