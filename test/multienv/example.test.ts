/**
 * config-examples/multi-env: a base tree shared by staging (self-hosted) and production (hosted),
 * an overlay and vars per target. It validates, and plans and applies against a local sandbox
 * (obsync.yaml) and against the embedded sandboxes (obsync.embedded.yaml).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/defaults.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { until, untilListening } from '../support/wait.js';

const EXAMPLE = 'config-examples/multi-env';
const ENV = { STAGING_API_KEY: SANDBOX_DEFAULTS.apiKey, PROD_KEY_ID: SANDBOX_DEFAULTS.keyId, PROD_KEY_SECRET: SANDBOX_DEFAULTS.keySecret };

let dir: string;
let sandbox: SandboxHandle | undefined;

beforeAll(() => assertBuilt());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-multi-env-'));
  cpSync(EXAMPLE, dir, { recursive: true });
});

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The example's obsync.yaml, pointed at a sandbox on a free port instead of 8000. */
async function localSandbox(): Promise<void> {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
  const config = readFileSync(join(dir, 'obsync.yaml'), 'utf8').replaceAll('http://127.0.0.1:8000', sandbox.url);
  writeFileSync(join(dir, 'obsync.yaml'), config);
}

describe('config-examples/multi-env', () => {
  it('declares the same trees and vars in obsync.yaml and obsync.embedded.yaml, and validates both', async () => {
    const trees = (file: string) => loadConfig(join(EXAMPLE, file), {}, { select: () => [], allTrees: true }).declared;
    expect(trees('obsync.embedded.yaml').map((d) => ({ ...d }))).toEqual(trees('obsync.yaml'));
    for (const config of ['obsync.yaml', 'obsync.embedded.yaml']) {
      const res = await runCli(['validate', '--config', config], { cwd: dir });
      expect(res.stdout).toBe('valid: resources per target: staging 4, production 4\n');
      expect(res.code).toBe(0);
    }
  });

  it('plans and applies each target against a local sandbox, with its own overlay and vars, then converges', async () => {
    await localSandbox();
    for (const target of ['staging', 'production']) {
      const apply = await runCli(['apply', '--target', target, '--auto-approve'], { cwd: dir, env: ENV });
      expect(apply.stderr).not.toMatch(/^error/m);
      expect(apply.code).toBe(0);
      const again = await runCli(['plan', '--target', target, '--detailed-exitcode'], { cwd: dir, env: ENV });
      expect(again.stdout).toContain('No changes.');
      expect(again.code).toBe(0);
    }
    const alerts = async (path: string, auth: string) =>
      (await (await fetch(`${sandbox?.url ?? ''}${path}`, { headers: { authorization: auth } })).json()) as {
        data?: { name: string; threshold: number }[];
        result?: { name: string; threshold: number }[];
      };
    const selfHosted = await alerts('/api/v2/alerts', `Bearer ${SANDBOX_DEFAULTS.apiKey}`);
    expect(selfHosted.data?.map((a) => `${a.name}: ${a.threshold}`).sort()).toEqual([
      'Storefront error logs above 200 per minute (staging): 200',
      'Storefront p99 above 900 ms (staging): 900',
    ]);
    const basic = `Basic ${Buffer.from(`${SANDBOX_DEFAULTS.keyId}:${SANDBOX_DEFAULTS.keySecret}`).toString('base64')}`;
    const hosted = await alerts(
      `/v1/organizations/${SANDBOX_DEFAULTS.organizationId}/services/${SANDBOX_DEFAULTS.serviceId}/clickstack/alerts`,
      basic,
    );
    expect(hosted.result?.map((a) => `${a.name}: ${a.threshold}`).sort()).toEqual([
      'Storefront error logs above 50 per minute (production): 50',
      'Storefront p99 above 500 ms (production): 500',
    ]);
  });

  it('plans and applies both targets from one command, and one daemon keeps both reconciled and ready', async () => {
    await localSandbox();
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      'Targets: staging: 4 to create, 0 to update, 0 to delete, 0 unchanged; production: 3 to create, 0 to update, 0 to delete, 1 to ' +
        'adopt, 0 unchanged',
    );
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV });
    expect(apply.code).toBe(0);
    const writesBefore = sandbox?.requests().filter((r) => r.method !== 'GET').length;
    const daemon = spawnCli(['run', '--listen', '127.0.0.1:0', '--schedule', '0 0 1 1 *'], { cwd: dir, env: ENV });
    let output = '';
    daemon.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const url = await untilListening(() => output);
      const ready = await until(
        'both targets ready',
        async () => {
          const res = await fetch(`${url}/readyz`).catch(() => undefined);
          return res?.status === 200 ? ((await res.json()) as { targets: Record<string, { ready: boolean }> }) : undefined;
        },
        { context: () => output.slice(-3000) },
      );
      expect(Object.keys(ready.targets)).toEqual(['staging', 'production']);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/obsync_reconcile_total\{target="staging",result="success"\} 1/);
      expect(metrics).toMatch(/obsync_reconcile_total\{target="production",result="success"\} 1/);
      // Converged by the one-command apply: the daemon's start-up runs wrote nothing.
      expect(sandbox?.requests().filter((r) => r.method !== 'GET').length).toBe(writesBefore);
    } finally {
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('exit', r));
    }
  });

  it('plans each target against its embedded sandbox with nothing to start', async () => {
    for (const target of ['staging', 'production']) {
      const res = await runCli(['plan', '--config', 'obsync.embedded.yaml', '--target', target, '--detailed-exitcode'], { cwd: dir });
      expect(res.stderr).toContain(`target '${target}' is the embedded sandbox`);
      expect(res.code).toBe(2);
      expect(res.stdout).toContain(`Storefront (${target})`);
    }
  });
});
