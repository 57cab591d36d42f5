/**
 * Crash test: `obsync apply` killed with SIGKILL at several points of a large apply, then run
 * again: the service converges with no duplicates and the inventory owns every object created.
 */
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';

const COUNT = 30;

function manifests(dir: string): void {
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  const docs: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    docs.push(
      `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: crash-${i}}
spec:
  name: Crash ${i}
  tiles:
    - {key: lat, name: Latency, x: 0, y: 0, w: 12, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, ` +
        `valueExpression: Duration}]}}
---
apiVersion: obsync/v1
kind: Alert
metadata: {name: crash-${i}-slow}
spec: {dashboard: crash-${i}, tile: lat, threshold: 100, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: ` +
        `ops-slack}, name: crash ${i} slow}`,
    );
  }
  writeFileSync(join(dir, 'manifests/all.yaml'), docs.join('\n---\n') + '\n');
}

describe('crash during apply', () => {
  it('converges after SIGKILLs at several points, with no duplicates and full ownership', { timeout: 180_000 }, async () => {
    assertBuilt();
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off', faults: { latencyMs: 15 } });
    const dir = mkdtempSync(join(tmpdir(), 'obsync-crash-'));
    try {
      manifests(dir);
      writeFileSync(
        join(dir, 'obsync.yaml'),
        `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: ` +
          `"${sandbox.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}, rateLimit: {requests: 1000, perSeconds: 1}}\n`,
      );
      // Kill points by progress, not by time (start-up time varies on a shared machine): once the
      // sandbox has received this many creates in all, mid-apply of dashboards, then of alerts.
      const posts = () => sandbox.requests().filter((r) => r.method === 'POST').length;
      let killed = 0;
      for (const killAtPosts of [5, 25, 45]) {
        const child = spawnCli(['apply', '--auto-approve', '--concurrency', '4'], { cwd: dir });
        let exited = false;
        const exit = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal))).finally(
          () => (exited = true),
        );
        while (!exited && posts() < killAtPosts) await new Promise((r) => setTimeout(r, 2));
        child.kill('SIGKILL');
        if ((await exit) === 'SIGKILL') killed += 1;
      }
      expect(killed).toBeGreaterThanOrEqual(2);
      const writesBefore = sandbox.requests().filter((r) => r.method === 'POST').length;
      expect(writesBefore).toBeGreaterThan(0);
      sandbox.faults.clear();
      const final = await runCli(['apply', '--auto-approve'], { cwd: dir });
      expect(final.code).toBe(0);
      const again = await runCli(['plan', '--detailed-exitcode'], { cwd: dir });
      expect(again.code).toBe(0);

      const headers = { authorization: `Bearer ${sandbox.credentials.apiKey}` };
      const dashboards = (
        (await (await fetch(`${sandbox.url}/api/v2/dashboards`, { headers })).json()) as { data: { id: string; name: string }[] }
      ).data;
      const names = dashboards.map((d) => d.name);
      expect(names.length).toBe(COUNT);
      expect(new Set(names).size).toBe(COUNT);
      const alerts = ((await (await fetch(`${sandbox.url}/api/v2/alerts`, { headers })).json()) as { data: { id: string }[] }).data;
      expect(alerts.length).toBe(COUNT);

      const stateDir = join(dir, '.obsync/state');
      const snapshot = readdirSync(stateDir).find((f) => f === 'sb.json');
      expect(snapshot).toBeDefined();
      const inventory = JSON.parse(readFileSync(join(stateDir, 'sb.json'), 'utf8')) as { entries: { id: string | null; status: string }[] };
      const owned = new Set(inventory.entries.filter((e) => e.status === 'owned').map((e) => e.id));
      for (const o of [...dashboards, ...alerts]) expect(owned.has(o.id)).toBe(true);
      expect(inventory.entries.filter((e) => e.status === 'pending')).toEqual([]);
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
