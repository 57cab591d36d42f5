/**
 * End to end, issue 18, through the real CLI on both variants: a realistic estate seeded through
 * the API exports to a tree that validates with the listed variables set; a second export is
 * byte-identical; `export --adopt` owns every object, after which apply writes nothing (the
 * sandbox's request log has no write) and plan shows no change; a removed manifest is exactly
 * what `plan --prune` deletes. No exported file and no output holds a secret value.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { Secret } from '../../src/core/secret.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { seedEstate } from '../support/estate.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
});
afterAll(() => sandbox.close());

function config(variant: 'hosted' | 'self-hosted'): string {
  const c = sandbox.credentials;
  const credentials =
    variant === 'hosted'
      ? `organizationId: ${c.organizationId}\n    serviceId: ${c.serviceId}\n    credentials: {keyId: ${c.keyId}, keySecret: ` +
        `${c.keySecret}}`
      : `credentials: {apiKey: ${c.apiKey}}`;
  return (
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: file, path: .obsync/state}\ntargets:\n  - name: ` +
    `t\n    variant: ${variant}\n    baseUrl: ${sandbox.url}\n    ${credentials}\n    rateLimit: {requests: 1000, perSeconds: 1}\n`
  );
}

function portFor(variant: 'hosted' | 'self-hosted'): ServicePort {
  const c = sandbox.credentials;
  const common = {
    baseUrl: sandbox.url,
    concurrency: 4,
    timeoutMs: 10_000,
    retries: 0,
    pacing: { limit: 0, windowMs: 1 },
    embedded: false,
  };
  return variant === 'hosted'
    ? createServicePort({
        ...common,
        name: 'h',
        variant: 'hosted',
        organizationId: c.organizationId,
        serviceId: c.serviceId,
        keyId: c.keyId,
        keySecret: new Secret(c.keySecret),
        paths: { observability: 'clickstack', pipes: 'clickpipes' },
      })
    : createServicePort({ ...common, name: 's', variant: 'self-hosted', apiKey: new Secret(c.apiKey) });
}

/** Every file under `dir`, path → content. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** The variables env.example lists, set to the live values they stand for (the test may read them; obsync never writes them). */
async function secretEnv(dir: string, port: ServicePort): Promise<Record<string, string>> {
  const hooks = await collectionOf(port, 'Webhook').list();
  const lines = readFileSync(join(dir, 'manifests/env.example'), 'utf8').split('\n');
  const env: Record<string, string> = {};
  lines.forEach((line, i) => {
    const m = /^# Webhook\/([a-z0-9-]+) spec\.(url|body)$/.exec(line);
    const variable = lines[i + 1]?.replace(/=$/, '');
    if (!m?.[1] || !variable) return;
    const doc = parse(readFileSync(join(dir, 'manifests/webhook', `${m[1]}.yaml`), 'utf8').replace(/^#.*$/gm, '')) as {
      spec: { name: string; service: string };
    };
    const live = hooks.find((h) => h.name === doc.spec.name && h.service === doc.spec.service);
    const value = m[2] === 'url' ? live?.url : (live as { body?: string } | undefined)?.body;
    if (value !== undefined) env[variable] = value;
  });
  return env;
}

describe.each(['self-hosted', 'hosted'] as const)('obsync export on the %s variant', (variant) => {
  // Fourteen CLI runs in one scenario: past the 60 s default on a loaded 2-core machine.
  it('exports, adopts with zero writes, plans to no change, prunes exactly a removed manifest, never writes a secret', {
    timeout: 240_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), `obsync-export-e2e-${variant}-`));
    const port = portFor(variant);
    try {
      const estate = await seedEstate(port, variant, { dashboards: 14, tag: variant === 'hosted' ? 'eh' : 'es' });
      writeFileSync(join(dir, 'obsync.yaml'), config(variant));
      const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });
      const noSecret = (...texts: string[]) => {
        for (const text of texts) for (const s of estate.secrets) expect(text).not.toContain(s);
      };

      if (variant === 'hosted') {
        const none = await run(['export', '--kind', 'Connection']);
        expect(none.code).toBe(1);
        expect(none.stderr).toContain("the target 't' (hosted) has no Connection objects to export");
      }
      const unknownKind = await run(['export', '--kind', 'Dashbord']);
      expect(unknownKind.stderr).toContain('--kind Dashbord is not a kind obsync manages');
      const first = await run(['export']);
      expect(first.stderr).toContain('share their natural key');
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/Exported \d+ objects from target 't' to manifests\//);
      expect(first.stdout).toContain('Secrets were not written');
      const exported = tree(join(dir, 'manifests'));
      expect([...exported.keys()]).toContain('env.example');
      expect([...exported.keys()]).toContain('obsync.schema.json');
      expect([...exported.keys()].filter((f) => f.startsWith('dashboard/')).length).toBeGreaterThanOrEqual(14);
      // Every kind obsync manages that the variant serves.
      const folders = new Set([...exported.keys()].filter((f) => f.includes('/')).map((f) => f.split('/')[0]));
      expect([...folders].sort()).toEqual(
        variant === 'hosted'
          ? ['alert', 'dashboard', 'pipe', 'saved-search', 'source', 'webhook']
          : ['alert', 'connection', 'dashboard', 'saved-search', 'source', 'webhook'],
      );
      expect(exported.get('webhook/pager-' + (variant === 'hosted' ? 'eh' : 'es') + '.yaml')).toContain(
        "# Note: the service never returns a webhook's headers and query parameters",
      );
      noSecret(first.stdout, first.stderr, ...exported.values());

      // Stable: a second export is byte-identical, and exporting again over the tree is allowed.
      const second = await run(['export', '--out-dir', 'again']);
      expect(second.code, second.stderr).toBe(0);
      expect(tree(join(dir, 'again'))).toEqual(exported);
      expect(second.stderr).toContain("note: target 't' does not read again");
      rmSync(join(dir, 'again'), { recursive: true });
      // Adopting into a directory no plan reads would let the next `plan --prune` delete every adopted object: refused.
      const requests = sandbox.requests().length;
      const unread = await run(['export', '--adopt', '--out-dir', 'again']);
      expect(unread.code).toBe(1);
      expect(unread.stderr).toContain(
        "again is not among the manifest paths target 't' reads (manifests); nothing was read, written or adopted",
      );
      expect(sandbox.requests().length).toBe(requests); // refused before any request
      expect(existsSync(join(dir, 'again'))).toBe(false);
      expect(JSON.parse((await run(['state', 'list', '--output', 'json'])).stdout)).toEqual([]);

      const env = await secretEnv(dir, port);
      expect(Object.keys(env).length).toBeGreaterThanOrEqual(3);
      expect((await run(['validate'])).code).toBe(1); // the variables are needed
      const valid = await run(['validate'], env);
      expect(valid.code, valid.stderr + valid.stdout).toBe(0);

      const adopt = await run(['export', '--adopt'], env);
      expect(adopt.code, adopt.stderr).toBe(0);
      expect(adopt.stdout).toMatch(/Adopted \d+ objects/);
      expect(tree(join(dir, 'manifests'))).toEqual(exported);
      const owned = await run(['state', 'list', '--output', 'json']);
      expect((JSON.parse(owned.stdout) as unknown[]).length).toBe([...exported.keys()].filter((f) => f.endsWith('.yaml')).length);

      sandbox.clearRequests();
      const apply = await run(['apply', '--auto-approve'], env);
      expect(apply.code, apply.stderr + apply.stdout).toBe(0);
      expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
      const plan = await run(['plan', '--detailed-exitcode'], env);
      expect(plan.code, plan.stdout).toBe(0);
      noSecret(adopt.stdout, adopt.stderr, apply.stdout, apply.stderr, plan.stdout, plan.stderr);

      // Remove one dashboard no alert watches: prune deletes exactly that one.
      const alerts = [...exported]
        .filter(([f]) => f.startsWith('alert/'))
        .map(([, text]) => text)
        .join('\n');
      const doomed = [...exported.keys()].find(
        (f) => f.startsWith('dashboard/') && !alerts.includes(`dashboard: ${f.slice('dashboard/'.length, -'.yaml'.length)}\n`),
      );
      if (!doomed) throw new Error('every dashboard has an alert');
      rmSync(join(dir, 'manifests', doomed));
      const prune = await run(['plan', '--prune', '--out', 'plan.json'], env);
      expect(prune.code, prune.stdout + prune.stderr).toBe(0);
      const saved = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as {
        targets: { steps: { action: string; address: string }[] }[];
      };
      expect(
        saved.targets
          .flatMap((t) => t.steps)
          .filter((s) => s.action !== 'noop')
          .map((s) => `${s.action} ${s.address}`),
      ).toEqual([`delete Dashboard/${doomed.slice('dashboard/'.length, -'.yaml'.length)}`]);
      noSecret(readFileSync(join(dir, 'plan.json'), 'utf8'));
    } finally {
      await port.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('obsync import', () => {
  it('adopts one object by id under the address a manifest declares, and explains every refusal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-import-e2e-'));
    const port = portFor('self-hosted');
    try {
      const made = await collectionOf(port, 'Dashboard').create({
        name: 'Hand made import',
        tiles: [{ name: 'Notes', x: 0, y: 0, w: 6, h: 2, config: { displayType: 'markdown', markdown: 'hi' } }],
      });
      writeFileSync(join(dir, 'obsync.yaml'), config('self-hosted'));
      const run = (args: string[]) => runCli(args, { cwd: dir });
      expect((await run(['export', '--kind', 'Dashboard', '--match', '^Hand made import$'])).code).toBe(0);
      const file = join(dir, 'manifests/dashboard/hand-made-import.yaml');
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('name: Hand made import');
      // A file edited since is never overwritten silently.
      writeFileSync(file, text.replace('w: 6', 'w: 8'));
      const refused = await run(['export', '--kind', 'Dashboard', '--match', '^Hand made import$']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('already exist with other content (dashboard/hand-made-import.yaml); nothing was written');
      expect(readFileSync(file, 'utf8')).toContain('w: 8');
      expect((await run(['export', '--kind', 'Dashboard', '--match', '^Hand made import$', '--force'])).code).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(text);

      const undeclared = await run(['import', 'Dashboard/elsewhere', made.id]);
      expect(undeclared.code).toBe(1);
      expect(undeclared.stderr).toContain('no manifest declares Dashboard/elsewhere');
      const wrongKind = await run(['import', 'Alert/hand-made-import', made.id]);
      expect(wrongKind.code).toBe(1);
      expect(wrongKind.stderr).toContain(`${made.id} is a dashboard (Dashboard), not an alert`);
      const unknown = await run(['import', 'Dashboard/hand-made-import', 'ffffffffffffffffffffffff']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no dashboard with id ffffffffffffffffffffffff on the target');

      const imported = await run(['import', 'Dashboard/hand-made-import', made.id]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toContain(`Imported Dashboard/hand-made-import (id ${made.id})`);
      const state = JSON.parse((await run(['state', 'list', '--output', 'json'])).stdout) as { name: string; id: string }[];
      expect(state.map((e) => `${e.name} ${e.id}`)).toEqual([`hand-made-import ${made.id}`]);
      expect((await run(['import', 'Dashboard/hand-made-import', made.id])).stdout).toContain('already owned');
      expect((await run(['plan', '--detailed-exitcode'])).code).toBe(0);

      const elsewhere = await run(['export', '--kind', 'Dashboard', '--match', '^Hand made import$', '--out-dir', 'other']);
      expect(elsewhere.code).toBe(0);
      expect(elsewhere.stderr).toContain(
        'warning: 1 exported object is already declared by your manifests (Dashboard/hand-made-import in ' +
          'manifests/dashboard/hand-made-import.yaml)',
      );
    } finally {
      await port.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
