/**
 * A small world for engine tests of one target: the sandbox's domain behind the real client
 * (in-process, no sockets, either variant), an in-memory inventory, and manifests written as
 * YAML files and loaded as the CLI loads them. Plans and applies go through the engine's
 * `makePlan` / `applyPlanned`, as plan, apply and the daemon do.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ApplyReport } from '../../src/applier/context.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import type { InventoryStore } from '../../src/core/inventory.js';
import type { Plan } from '../../src/core/plan.js';
import type { ServicePort, Variant } from '../../src/core/ports.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { SENSITIVE_PATHS } from '../../src/kinds/sensitive-paths.js';
import { loadManifests } from '../../src/manifests/load.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { sandboxTarget } from '../../src/sandbox/target.js';
import { createServicePort } from '../../src/remote/index.js';

export class World {
  readonly port: ServicePort;
  readonly inventory: InventoryStore = memoryInventory('world');
  readonly #dir = mkdtempSync(join(tmpdir(), 'obsync-world-'));
  #sandbox: SandboxHandle | undefined;

  constructor(
    readonly variant: Variant,
    port?: ServicePort,
  ) {
    this.port = port ?? inProcessPort(createObservabilityDomain({ seed: 'demo' }), variant, 'world');
  }

  /** The same world over the sandbox's HTTP server (every domain, pipes and keys too). */
  static async overHttp(variant: Variant): Promise<World> {
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 5 });
    const world = new World(variant, sandboxPort(sandbox, variant));
    world.#sandbox = sandbox;
    return world;
  }

  /** Loads these YAML files (name → text) as the CLI would; the diagnostics of the load come back too. */
  load(files: Record<string, string>): { resources: DesiredResource[]; diagnostics: Diagnostic[] } {
    const dir = join(this.#dir, 'manifests');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return loadManifests([dir], { env: {} });
  }

  /** Plans these manifests (which must load without errors). */
  async plan(files: Record<string, string>, opts: { prune?: boolean } = {}): Promise<Plan> {
    return (await this.#planned(files, opts)).plan;
  }

  async apply(files: Record<string, string>, opts: { prune?: boolean } = {}): Promise<{ plan: Plan; report: ApplyReport }> {
    const planned = await this.#planned(files, opts);
    const report = await applyPlanned(planned, { port: this.port, inventory: this.inventory, concurrency: 2 });
    return { plan: planned.plan, report };
  }

  async close(): Promise<void> {
    rmSync(this.#dir, { recursive: true, force: true });
    if (this.#sandbox) {
      await this.port.close();
      await this.#sandbox.close();
    }
  }

  async #planned(files: Record<string, string>, opts: { prune?: boolean }) {
    const { resources, diagnostics } = this.load(files);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(`manifests do not load: ${errors.map((d) => d.message).join('; ')}`);
    return makePlan({
      port: this.port,
      inventory: this.inventory,
      desired: resources,
      sensitive: SENSITIVE_PATHS,
      selection: SELECT_ALL,
      prune: opts.prune ?? false,
      maxDeletes: 10,
    });
  }
}

/** The real client of one variant, on a sandbox served over HTTP (its default credentials and paths). */
export function sandboxPort(sandbox: SandboxHandle, variant: Variant): ServicePort {
  const settings = { name: 'world', concurrency: 2, timeoutMs: 10_000, retries: 0, pacing: { limit: 0, windowMs: 1 }, embedded: false };
  return createServicePort(sandboxTarget(variant, sandbox, settings));
}
