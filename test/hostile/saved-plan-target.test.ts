/**
 * Issue 24, item 3: a saved plan is bound to where it was made. `plan --out plan.json` records
 * each target's identity (name, variant, base URL, hosted organisation and service); `apply
 * plan.json` against another service — another OBSYNC_BASE_URL, another service id, an edited
 * obsync.yaml — is refused naming both, before a single request, and on every target at once.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { OUTPUT_FORMAT_VERSION } from '../../src/render/plan-schema.js';

let sandboxes: SandboxHandle[] = [];
let dir: string;

beforeAll(() => assertBuilt());
beforeEach(async () => {
  sandboxes = await Promise.all([0, 1, 2].map(() => startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 })));
  dir = mkdtempSync(join(tmpdir(), 'obsync-bound-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(
    join(dir, 'manifests/d.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: bound}\nspec:\n  name: Bound plan\n  tiles: [{name: Notes, x: 0, y: 0, w: ' +
      '6, h: 2, config: {displayType: markdown, markdown: hello}}]\n',
  );
});
afterEach(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const sb = (i: number): SandboxHandle => sandboxes[i] as SandboxHandle;

function hostedConfig(url: string): string {
  const c = sb(0).credentials;
  return (
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: prod, variant: hosted, baseUrl: "${url}", ` +
    `organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, credentials: {keyId: ${c.keyId}, keySecret: ` +
    `"\${env:KEY_SECRET}"}, rateLimit: {requests: 1000, perSeconds: 1}}\n`
  );
}

function selfHostedTargets(urls: string[]): string {
  const key = sb(0).credentials.apiKey;
  const targets = urls.map(
    (url, i) =>
      `  - {name: t${i}, variant: self-hosted, baseUrl: "${url}", credentials: {apiKey: ${key}}, rateLimit: {requests: 1000, perSeconds: ` +
      `1}}`,
  );
  return `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n${targets.join('\n')}\n`;
}

const env = { KEY_SECRET: 'unused' };
const requests = (s: SandboxHandle) => s.requests().length;
const writes = (s: SandboxHandle) => s.requests().filter((r) => r.method !== 'GET').length;

describe('a saved plan', () => {
  it('records the service it was made for, and applies there', async () => {
    writeFileSync(join(dir, 'obsync.yaml'), hostedConfig(`${sb(0).url}/`));
    const keyEnv = { KEY_SECRET: sb(0).credentials.keySecret };
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: keyEnv })).code).toBe(0);
    const doc = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as { obsync_format_version: string; targets: unknown[] };
    expect(doc.obsync_format_version).toBe(OUTPUT_FORMAT_VERSION);
    const c = sb(0).credentials;
    expect(doc.targets[0]).toMatchObject({
      target_identity: { name: 'prod', variant: 'hosted', base_url: sb(0).url, organization_id: c.organizationId, service_id: c.serviceId },
    });
    const applied = await runCli(['apply', 'plan.json'], { cwd: dir, env: keyEnv });
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes(sb(0))).toBeGreaterThan(0);
  });

  it('is refused against another base URL (OBSYNC_BASE_URL), naming both, before any request', async () => {
    writeFileSync(join(dir, 'obsync.yaml'), hostedConfig(sb(0).url));
    const keyEnv = { KEY_SECRET: sb(0).credentials.keySecret };
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: keyEnv })).code).toBe(0);
    sb(0).clearRequests();
    const res = await runCli(['apply', 'plan.json'], { cwd: dir, env: { ...keyEnv, OBSYNC_BASE_URL: sb(1).url } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`the saved plan was made for target 'prod' (hosted at ${sb(0).url}, organisation`);
    expect(res.stderr).toContain(`but this apply would write to target 'prod' (hosted at ${sb(1).url}, organisation`);
    expect(res.stderr).toContain('(baseUrl differ)');
    expect(res.stderr).toMatch(/hint: apply the plan with the settings it was made with/);
    expect(requests(sb(0))).toBe(0);
    expect(requests(sb(1))).toBe(0);
  });

  it('is refused against another hosted service of the same organisation (OBSYNC_SERVICE_ID)', async () => {
    writeFileSync(join(dir, 'obsync.yaml'), hostedConfig(sb(0).url));
    const keyEnv = { KEY_SECRET: sb(0).credentials.keySecret };
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: keyEnv })).code).toBe(0);
    sb(0).clearRequests();
    const res = await runCli(['apply', 'plan.json'], {
      cwd: dir,
      env: { ...keyEnv, OBSYNC_SERVICE_ID: '0b0f0000-0000-4000-8000-000000000000' },
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('service 0b0f0000-0000-4000-8000-000000000000');
    expect(res.stderr).toContain('(serviceId differ)');
    expect(requests(sb(0))).toBe(0);
  });

  it('of several targets applies nothing anywhere when one of them now points elsewhere', async () => {
    writeFileSync(join(dir, 'obsync.yaml'), selfHostedTargets([sb(0).url, sb(1).url]));
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    writeFileSync(join(dir, 'obsync.yaml'), selfHostedTargets([sb(0).url, sb(2).url]));
    const res = await runCli(['apply', 'plan.json'], { cwd: dir, env });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`error: target 't1': the saved plan was made for target 't1' (self-hosted at ${sb(1).url})`);
    expect(res.stderr).toContain('Nothing was applied to any target');
    for (const s of sandboxes) expect(writes(s)).toBe(0);
  });

  it('that does not say where it was made (an older obsync) is refused', async () => {
    writeFileSync(join(dir, 'obsync.yaml'), selfHostedTargets([sb(0).url]));
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    const doc = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as { targets: Record<string, unknown>[] };
    // A plan of this format whose target lacks its identity (a plan of another format is refused by its version).
    for (const t of doc.targets) delete t.target_identity;
    writeFileSync(join(dir, 'old.json'), JSON.stringify(doc));
    const res = await runCli(['apply', 'old.json'], { cwd: dir, env });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('does not say which service it was made for (a plan of an older obsync)');
    expect(writes(sb(0))).toBe(0);
  });
});
