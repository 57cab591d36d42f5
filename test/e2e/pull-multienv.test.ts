/**
 * `obsync pull` over config-examples/multi-env (issue 41): base/ is read by staging (self-hosted)
 * and production (hosted), each target adds its own folder. A base manifest is edited only when
 * every target that reads it asks the same edit; a target pulled alone (--target) never edits a
 * file another target reads; a target's own folder takes its edits alone. One sandbox serves both.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort, Variant } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/defaults.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { sandboxPort } from '../support/world.js';

const ENV = { STAGING_API_KEY: SANDBOX_DEFAULTS.apiKey, PROD_KEY_ID: SANDBOX_DEFAULTS.keyId, PROD_KEY_SECRET: SANDBOX_DEFAULTS.keySecret };
const BASE = 'base/dashboards/storefront.yaml';
const CANARY = 'staging/dashboards/storefront-canary.yaml';

let dir: string;
let sandbox: SandboxHandle;
const ports: ServicePort[] = [];

beforeAll(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'obsync-pull-multienv-'));
  cpSync('config-examples/multi-env', dir, { recursive: true });
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
  const config = join(dir, 'obsync.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replaceAll('http://127.0.0.1:8000', sandbox.url));
});
afterAll(async () => {
  for (const p of ports) await p.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => runCli(args, { cwd: dir, env: ENV });
const read = (file: string) => readFileSync(join(dir, file), 'utf8');

/** Sets a tile's height on the service, as the UI's resize would. */
async function resize(variant: Variant, dashboard: string, tile: string, h: number): Promise<void> {
  const port = sandboxPort(sandbox, variant);
  ports.push(port);
  const dashboards = collectionOf(port, 'Dashboard');
  const found = (await dashboards.list()).find((d) => d.name === dashboard);
  if (!found) throw new Error(`no dashboard ${dashboard} on ${variant}`);
  const { id, ...body } = found; // the Cloud API refuses a top-level id in the body
  const tiles = found.tiles.map((t) => (t.name === tile ? { ...t, h } : t));
  await dashboards.update(id, { ...body, tiles } as never);
}

interface Report {
  changes: boolean;
  files: { file: string; status: string; edits: { path: string; after?: unknown }[] }[];
  conflicts: { file: string; path: string; reason: string; live?: Record<string, unknown>; targets: string[] }[];
}
async function pull(...args: string[]): Promise<{ code: number; report: Report }> {
  const out = await run('pull', '--output', 'json', ...args);
  return { code: out.code, report: JSON.parse(out.stdout) as Report };
}

describe('obsync pull over a base shared by two environments', () => {
  it('edits a shared manifest only when every target reading it asks the same, and a target alone only its own files', {
    timeout: 120_000,
  }, async () => {
    for (const target of ['staging', 'production']) expect((await run('apply', '--target', target, '--auto-approve')).code).toBe(0);
    const base = read(BASE);

    // Resized in staging's UI only: both targets read base/, and their live values differ.
    await resize('self-hosted', 'Storefront (staging)', 'p99 latency', 6);
    const both = await pull();
    expect(both.code, JSON.stringify(both.report)).toBe(1);
    expect(both.report.conflicts).toEqual([
      expect.objectContaining({
        file: BASE,
        path: 'spec.tiles[0].h',
        reason: 'targets-differ',
        live: { staging: 6, production: '(as in the manifest)' },
        targets: ['staging', 'production'],
      }),
    ]);
    // Pulled alone, staging must not write into a file production reads too.
    const alone = await pull('--target', 'staging');
    expect(alone.code).toBe(1);
    expect(alone.report.conflicts).toEqual([
      expect.objectContaining({
        file: BASE,
        path: 'spec.tiles[0].h',
        reason: 'targets-differ',
        live: { staging: 6, production: '(not read by this pull)' },
        targets: ['staging', 'production'],
      }),
    ]);
    expect(read(BASE)).toBe(base);

    // The same resize in production: both ask the same edit, and the shared file takes it.
    await resize('hosted', 'Storefront (production)', 'p99 latency', 6);
    const agreed = await pull();
    expect(agreed.code, JSON.stringify(agreed.report)).toBe(0);
    expect(read(BASE)).toBe(base.replace('      w: 12\n      h: 4\n', '      w: 12\n      h: 6\n'));
    for (const target of ['staging', 'production']) expect((await run('plan', '--target', target, '--detailed-exitcode')).code).toBe(0);

    // A file only staging reads takes staging's edit, pulled alone.
    const canary = read(CANARY);
    await resize('self-hosted', 'Storefront canary (staging)', 'About', 3);
    const own = await pull('--target', 'staging');
    expect(own.code, JSON.stringify(own.report)).toBe(0);
    expect(own.report.files.map((f) => [f.file, f.status])).toEqual([[CANARY, 'changed']]);
    expect(read(CANARY)).toBe(canary.replace('      h: 2\n', '      h: 3\n'));
    expect((await run('plan', '--target', 'staging', '--detailed-exitcode')).code).toBe(0);
  });
});
