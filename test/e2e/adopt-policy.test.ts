/**
 * Issue 18 through the CLI: with `adopt: by-name` (the default) taking over an existing object is
 * loud in every plan output, with the changes it brings; with `adopt: explicit` it is an error
 * naming the object's id and the `obsync import` that binds it, and nothing is written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { Secret } from '../../src/core/secret.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { alertYaml, dashboardYaml } from '../support/plans.js';

let sandbox: SandboxHandle;
let port: ServicePort;
beforeAll(async () => {
  assertBuilt();
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
metadata: {name: payments}
spec:
  name: Payments
  tiles: [{name: Notes, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: from git}}]
`;

function project(adopt: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-adopt-policy-'));
  const policy = adopt ? `\n    adopt: ${adopt}` : '';
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [m.yaml]\nstate: {backend: file, path: state}\ntargets:\n  - name: t\n    variant: ` +
      `self-hosted\n    baseUrl: ${sandbox.url}\n    credentials: {apiKey: ${sandbox.credentials.apiKey}}${policy}\n`,
  );
  writeFileSync(join(dir, 'm.yaml'), MANIFEST);
  return dir;
}

describe('adoption policy', () => {
  it('by-name: every plan output shows the adoption and what it changes', async () => {
    const made = await collectionOf(port, 'Dashboard').create({
      name: 'Payments',
      tiles: [{ name: 'Notes', x: 0, y: 0, w: 6, h: 2, config: { displayType: 'markdown', markdown: 'hand made' } }],
    });
    const dir = project(undefined);
    try {
      const text = await runCli(['plan'], { cwd: dir });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('Dashboard/payments will be ADOPTED');
      expect(text.stdout).toContain(made.id);
      expect(text.stdout).toContain('tiles.notes.config.markdown');
      const markdown = await runCli(['plan', '--output', 'markdown'], { cwd: dir });
      expect(markdown.stdout).toContain('will be ADOPTED');
      expect(markdown.stdout).toContain('`Dashboard/payments` (existing id `' + made.id + '`): 1 field(s) change');
      const json = JSON.parse((await runCli(['plan', '--output', 'json'], { cwd: dir })).stdout) as {
        resource_changes: { obsync_address: string; change: { importing?: unknown; actions: string[] } }[];
      };
      const change = json.resource_changes.find((c) => c.obsync_address === 'Dashboard/payments')?.change;
      expect(change?.importing).toBeDefined();
      expect(change?.actions).toEqual(['update']);
    } finally {
      await collectionOf(port, 'Dashboard').delete(made.id);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('explicit: a name clash is an error naming the existing id and the import; after the import it plans as owned', async () => {
    const made = await collectionOf(port, 'Dashboard').create({
      name: 'Payments',
      tiles: [{ name: 'Notes', x: 0, y: 0, w: 6, h: 2, config: { displayType: 'markdown', markdown: 'hand made' } }],
    });
    const dir = project('explicit');
    try {
      const plan = await runCli(['plan'], { cwd: dir });
      expect(plan.code).toBe(1);
      const said = plan.stdout + plan.stderr;
      expect(said).toContain(`an existing dashboard (id ${made.id})`);
      expect(said).toContain(`obsync import Dashboard/payments ${made.id}`);
      sandbox.clearRequests();
      const apply = await runCli(['apply', '--auto-approve'], { cwd: dir });
      expect(apply.code).toBe(1);
      expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
      expect((await runCli(['state', 'list', '--output', 'json'], { cwd: dir })).stdout.trim()).toBe('[]');

      // The CLI tells the same events as the daemon, at info.
      const info = await runCli(['plan'], { cwd: dir, env: { OBSYNC_LOG_LEVEL: 'info' } });
      expect(info.stderr).toMatch(/"event":"refused","guard":"adoption","address":"Dashboard\/payments".*"msg":"refused"/);
      expect(info.stderr).toMatch(/"event":"run-finished","mode":"plan","result":"failure"/);
      const imported = await runCli(['import', 'Dashboard/payments', made.id], { cwd: dir, env: { OBSYNC_LOG_LEVEL: 'info' } });
      expect(imported.code).toBe(0);
      expect(imported.stderr).toContain(
        `"event":"imported","address":"Dashboard/payments","id":"${made.id}","via":"import","msg":"imported"`,
      );
      const owned = await runCli(['plan', '--detailed-exitcode'], { cwd: dir });
      expect(owned.code, owned.stdout + owned.stderr).toBe(2);
      expect(owned.stdout).not.toContain('ADOPTED');
      expect(owned.stdout).toContain('tiles.notes.config.markdown');
    } finally {
      await collectionOf(port, 'Dashboard').delete(made.id);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(
    'explicit: an alert selected alone, on a dashboard made by hand, ' +
      'says the dashboard exists unowned and how to take it (issue 40.5)',
    async () => {
      const made = await collectionOf(port, 'Dashboard').create({
        name: 'Latency',
        tiles: [{ name: 'Notes', x: 0, y: 0, w: 6, h: 2, config: { displayType: 'markdown', markdown: 'hand made' } }],
      });
      const dir = project('explicit');
      writeFileSync(
        join(dir, 'm.yaml'),
        `${dashboardYaml('latency', 'Latency', [{ key: 'p99' }])}---\n` +
          alertYaml('latency-p99', { dashboard: 'latency', tile: 'p99', threshold: 1, interval: '5m', webhook: 'ops-slack' }),
      );
      try {
        const plan = await runCli(['plan', '--only', 'Alert/latency-p99'], { cwd: dir });
        expect(plan.code).toBe(1);
        const said = plan.stdout + plan.stderr;
        expect(said).not.toContain('does not exist on the target');
        expect(said).toContain('it depends on Dashboard/latency, which is not selected, and obsync does not own it yet');
        expect(said).toContain(`an existing dashboard (id ${made.id})`);
        expect(said).toContain(`obsync import Dashboard/latency ${made.id}`);
      } finally {
        await collectionOf(port, 'Dashboard').delete(made.id);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
