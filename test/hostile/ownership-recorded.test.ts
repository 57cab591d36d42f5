/**
 * Issue 13, item 3: adoptions and pending resolutions were written only by runs with changes,
 * so after the inventory was lost prune stayed disabled forever. Every plan-and-apply run and
 * every daemon run in apply mode records ownership, also without changes; `plan` writes nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertYaml, dashboardYaml, TrustHarness } from '../support/reconcile.js';
import { assertBuilt, runCli, spawnCli } from '../support/cli.js';
import { until } from '../support/wait.js';

let h: TrustHarness;

const A = dashboardYaml('a', 'Dash A', [{ key: 'lat' }]) + '---\n' + alertYaml('a-slow', 'a', 'lat');
const B = dashboardYaml('b', 'Dash B', [{ key: 'lat' }]);

beforeEach(async () => {
  h = await TrustHarness.start();
  h.manifests({ 'a.yaml': A, 'b.yaml': B });
  expect((await h.run()).apply?.summary.failed).toBe(0);
});

afterEach(() => h.close());

describe('ownership after the inventory is lost', () => {
  it('is recorded by a plan-and-apply run without changes, so prune works again', async () => {
    await h.loseInventory();
    const quiet = await h.run();
    expect(quiet.plan.summary.create + quiet.plan.summary.update + quiet.plan.summary.delete).toBe(0);
    expect(quiet.plan.steps.every((s) => s.adopt === true)).toBe(true);
    expect(
      h.inventory
        .entries()
        .map((e) => `${e.kind}/${e.name}:${e.status}`)
        .sort(),
    ).toEqual(['Alert/a-slow:owned', 'Dashboard/a:owned', 'Dashboard/b:owned']);

    h.manifests({ 'a.yaml': A });
    const pruned = await h.run({ prune: true });
    expect(pruned.apply?.results.filter((r) => r.action === 'delete' && r.outcome === 'applied').map((r) => r.address)).toEqual([
      'Dashboard/b',
    ]);
    expect((await h.dashboards()).map((d) => d.name)).not.toContain('Dash B');
  });

  it('is not written by a plan', async () => {
    await h.loseInventory();
    const planned = await h.run({ mode: 'plan' });
    expect(planned.apply).toBeUndefined();
    expect(h.inventory.entries()).toEqual([]);
  });
});

describe('ownership through the CLI and the daemon', () => {
  let child: ChildProcess | undefined;
  let output = '';

  beforeAll(() => assertBuilt());

  beforeEach(async () => {
    const c = h.sandbox.credentials;
    writeFileSync(
      join(h.dir, 'obsync.yaml'),
      `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: file, path: state}\ntargets:\n  - {name: sb, ` +
        `variant: self-hosted, baseUrl: "${h.sandbox.url}", credentials: {apiKey: ${c.apiKey}}}\n`,
    );
    // The harness's own run filled the inventory: lose it, as on a fresh CI runner.
    await h.inventory.close();
    rmSync(h.stateDir, { recursive: true, force: true });
    return async () => {
      if (child && child.exitCode === null) {
        child.kill('SIGKILL');
        await new Promise((r) => child?.once('exit', r));
      }
      await h.openInventory();
    };
  });

  const owned = (): string[] => {
    const file = join(h.stateDir, 'sb.json');
    const journal = join(h.stateDir, 'sb.journal');
    const names = new Set<string>();
    if (existsSync(file))
      for (const e of (JSON.parse(readFileSync(file, 'utf8')) as { entries: { kind: string; name: string; status: string }[] }).entries)
        if (e.status === 'owned') names.add(`${e.kind}/${e.name}`);
    if (existsSync(journal)) {
      for (const line of readFileSync(journal, 'utf8').split('\n').filter(Boolean)) {
        const op = JSON.parse(line) as { op: string; entry?: { kind: string; name: string; status: string } };
        if (op.op === 'put' && op.entry?.status === 'owned') names.add(`${op.entry.kind}/${op.entry.name}`);
      }
    }
    return [...names].sort();
  };

  it('`obsync apply` with no changes records the adoptions; `obsync plan` writes none', async () => {
    const plan = await runCli(['plan'], { cwd: h.dir });
    expect(plan.code).toBe(0);
    expect(owned()).toEqual([]);
    const apply = await runCli(['apply', '--auto-approve'], { cwd: h.dir });
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('No changes.');
    expect(owned()).toEqual(['Alert/a-slow', 'Dashboard/a', 'Dashboard/b']);
  });

  it('the daemon in apply mode records them in a run without changes', async () => {
    child = spawnCli(['run', '--no-watch', '--listen', '127.0.0.1:0', '--schedule', '*/5 * * * *'], { cwd: h.dir });
    output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await until('a finished run', () => (/"msg":"run finished"/.test(output) ? true : undefined), { context: () => output.slice(-4000) });
    expect(output).toMatch(/"result":"success"/);
    child.kill('SIGTERM');
    await new Promise((r) => child?.once('exit', r));
    expect(owned()).toEqual(['Alert/a-slow', 'Dashboard/a', 'Dashboard/b']);
  });
});
