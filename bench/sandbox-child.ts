/**
 * The bench's sandbox, in its own process so that the bench's CPU figures count obsync alone.
 * Seeds N bench dashboards and alerts in-process for one variant, serves both variants on a
 * loopback port and answers the parent over IPC: `requests` (the request log), `clear`, `close`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Variant } from '../src/core/ports.js';
import { applyPlanned, makePlan } from '../src/engine/run.js';
import { SELECT_ALL } from '../src/engine/selection.js';
import { memoryInventory } from '../src/inventory/memory-store.js';
import { createObservabilityDomain } from '../src/sandbox/domain/index.js';
import { inProcessPort } from '../src/sandbox/in-process-port.js';
import { startSandbox, type SandboxOptions } from '../src/sandbox/index.js';
import { createServicePort } from '../src/remote/index.js';
import { benchManifests, teamKey } from './fixtures.js';
import { benchTarget, NO_PACING } from './target.js';

export interface ChildOptions {
  n: number;
  variant: Variant;
  rateLimit: SandboxOptions['rateLimit'];
  /** Further self-hosted teams with the same N objects, each with its own key (`bench-team-1`…) and so its own rate limit. */
  teams?: number;
}

export type ChildRequest = { type: 'requests' } | { type: 'clear' } | { type: 'close' };

const opts = JSON.parse(process.argv[2] ?? '{}') as ChildOptions;
const dir = mkdtempSync(join(tmpdir(), 'obsync-bench-'));
const domain = createObservabilityDomain({ seed: 'demo' });
const port = inProcessPort(domain, opts.variant, 'seed');
const inventory = memoryInventory('seed');
const manifests = benchManifests(opts.n, opts.variant);
// The in-process port serves the observability API only; the estate's pipes are adopted over HTTP below.
const seeded = manifests.filter((r) => r.kind !== 'Pipe');
await applyPlanned(await makePlan({ port, inventory, desired: seeded, selection: SELECT_ALL, prune: false, maxDeletes: 0 }), {
  port,
  inventory,
  concurrency: 8,
});
const snapshot = JSON.stringify(domain.snapshot());
writeFileSync(join(dir, opts.variant === 'hosted' ? 'observability-hosted.json' : 'observability-selfhosted.json'), snapshot);
const teams = Array.from({ length: opts.teams ?? 0 }, (_, i) => ({ apiKey: teamKey(i + 1) }));
// Each team is a copy of the seeded one (the sandbox names team files by position).
teams.forEach((_t, i) => writeFileSync(join(dir, `observability-selfhosted-team-${i + 1}.json`), snapshot));
// Not written back: re-serialising 20,000 objects after every write would time the sandbox, not obsync.
const sandbox = await startSandbox({ port: 0, dataDir: dir, persist: false, rateLimit: opts.rateLimit, teams });
await adoptPipes();

/**
 * The estate's pipes (the demo seed's own, served by the HTTP sandbox alone), adopted here over
 * loopback: the measuring process is handed an inventory that owns everything, and never plans
 * the whole estate before it measures (that left 25 MB more resident in it than it would hold).
 */
async function adoptPipes(): Promise<void> {
  const pipes = manifests.filter((r) => r.kind === 'Pipe');
  if (pipes.length === 0) return;
  const http = createServicePort(benchTarget(opts.variant, sandbox, NO_PACING));
  try {
    const plan = await makePlan({ port: http, inventory, desired: pipes, selection: SELECT_ALL, prune: false, maxDeletes: 0 });
    await applyPlanned(plan, { port: http, inventory, concurrency: 8 });
  } finally {
    await http.close();
    sandbox.clearRequests();
  }
}

const send = (message: unknown) => process.send?.(message);
process.on('message', (message: ChildRequest) => {
  if (message.type === 'requests') send({ type: 'requests', log: sandbox.requests() });
  if (message.type === 'clear') {
    sandbox.clearRequests();
    send({ type: 'cleared' });
  }
  if (message.type === 'close') {
    void sandbox.close().then(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', url: sandbox.url, credentials: sandbox.credentials, dir, inventory: inventory.entries() });
