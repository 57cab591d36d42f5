/**
 * Issue 26 end to end: the CLI as a child process against the sandbox on both variants. The
 * backtest line under an alert (text), the column of the markdown table, the JSON objects
 * (validated by the committed schema); --backtest, --no-backtest, --backtest-budget and
 * defaults.backtest; "not available on hosted"; a webhook deletion the service would refuse,
 * predicted by the plan on both variants and never sent.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { Secret } from '../../src/core/secret.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';

let sandbox: SandboxHandle;
let dir: string;

interface Resource {
  obsync_address: string;
  module_address: string;
  backtest?: Record<string, unknown> & { before?: Record<string, unknown> };
}
interface TargetDoc {
  target: string;
  /** The document's top-level resource_changes of this target (its module). */
  resource_changes: Resource[];
  backtest?: Record<string, unknown>;
  prune: { blocked: { address: string; reason: string; usedBy?: { id?: string; owned: boolean; name: string | null }[] }[] };
}

const validate = () =>
  new Ajv({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync('docs/schema/plan.schema.json', 'utf8')) as object);

function targetDoc(text: string): TargetDoc {
  const doc = JSON.parse(text) as { resource_changes: Resource[]; targets: Omit<TargetDoc, 'resource_changes'>[] };
  const check = validate();
  check(doc);
  expect(check.errors ?? []).toEqual([]);
  const [only] = doc.targets;
  if (!only) throw new Error('no target in the plan');
  return { ...only, resource_changes: doc.resource_changes.filter((r) => r.module_address === `module.${only.target}`) };
}

function config(defaults = ''): void {
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1
kind: Config
manifests: [m]
${defaults}
targets:
  - {name: hosted, variant: hosted, baseUrl: ${sandbox.url}, organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, ` +
      `credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}, rateLimit: {requests: 1000, perSeconds: 1}}
  - {name: selfhosted, variant: self-hosted, baseUrl: ${sandbox.url}, credentials: {apiKey: ${c.apiKey}}}
`,
  );
}

const doc = (kind: string, name: string, spec: string) =>
  `apiVersion: obsync/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${spec}\n---\n`;
const board = doc(
  'Dashboard',
  'board',
  '{name: Board, tiles: [{key: errors, name: Errors, x: 0, y: 0, w: 6, h: 4, config: {displayType: line, source: Logs, select: [{aggFn: ' +
    "count, where: 'SeverityText:error'}]}}]}",
);
const alert = (threshold: number, webhook = 'ops-slack') =>
  doc(
    'Alert',
    'errors-high',
    `{dashboard: board, tile: errors, threshold: ${threshold}, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: ` +
      `${webhook}}, name: Errors high}`,
  );

function manifests(...docs: string[]): void {
  rmSync(join(dir, 'm'), { recursive: true, force: true });
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm/all.yaml'), docs.join(''));
}

/** The text plan with each wrapped backtest or impact sentence back on one line (continuations sit two columns deeper). */
function unwrapped(text: string): string {
  const indent = (line: string) => line.length - line.trimStart().length;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const previous = out.at(-1);
    const sentence = previous !== undefined && /^(backtest|! |- )/.test(previous.trimStart());
    if (previous !== undefined && sentence && line.trim() !== '' && indent(line) === indent(previous) + 2)
      out[out.length - 1] = `${previous} ${line.trim()}`;
    else out.push(line);
  }
  return out.join('\n');
}

const seriesRequests = () => sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/charts/series'));

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-backtest-'));
  config();
  manifests(board, alert(20));
});

afterEach(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (target: string, ...args: string[]) => runCli([...args, '--target', target], { cwd: dir });

describe('backtests in the plan (self-hosted)', () => {
  it('text: a line under the alert; markdown: a column; JSON: a backtest object and the plan summary', async () => {
    const text = await cli('selfhosted', 'plan');
    expect(text.code, text.stderr).toBe(0);
    expect(unwrapped(text.stdout)).toMatch(
      new RegExp(
        String.raw`\+ Alert\/errors-high[^\n]*\n(?:.*\n)*? {6}backtest 7d: would have fired in \d+ of 2016 windows, \d+ ` +
          String.raw`episodes?, last \d{4}-\d\d-\d\d \d\d:\d\d UTC; would have notified \d+ times?, and resolved \d+ times?`,
      ),
    );
    // 5 for the alert's week, 1 to check that its source still has data.
    expect(text.stdout).toContain('Backtest 7d: 1 alert(s), 6 series request(s) of a budget of 20.');

    const md = await cli('selfhosted', 'plan', '--output', 'markdown');
    expect(md.stdout).toContain('| | object | what changes | backtest 7d |');
    expect(md.stdout).toMatch(/\| `Alert\/errors-high` \| [^|]+ \| \d+ notification\(s\): \d+ episode\(s\), \d+ of 2016 windows firing \|/);
    expect(md.stdout).toMatch(/\| `Dashboard\/board` \| [^|]+ \| {2}\|/);

    const json = targetDoc((await cli('selfhosted', 'plan', '--output', 'json')).stdout);
    const bt = json.resource_changes.find((r) => r.obsync_address === 'Alert/errors-high')?.backtest;
    expect(bt).toMatchObject({ status: 'ok', window: '7d', granularity: '5m', evaluated: 2016, requests: 5 });
    expect(typeof bt?.firing).toBe('number');
    // Without groupBy the checker notifies on every firing window (hyperdx b52a6fa re-notifies each evaluation).
    expect(bt?.notifications).toBe(bt?.firing);
    expect(json.backtest).toMatchObject({ window: '7d', budget: 20, requests: 6, alerts: 1, skipped: 0 });
  });

  it('shows before → after for an update', async () => {
    expect((await cli('selfhosted', 'apply', '--auto-approve', '--no-backtest')).code).toBe(0);
    manifests(board, alert(40));
    const text = await cli('selfhosted', 'plan');
    expect(unwrapped(text.stdout)).toMatch(
      /backtest 7d: would have fired in \d+ → \d+ of 2016 windows, \d+ → \d+ episodes.*would have notified \d+ → \d+ times?/,
    );
    const json = targetDoc((await cli('selfhosted', 'plan', '--output', 'json')).stdout);
    const bt = json.resource_changes.find((r) => r.obsync_address === 'Alert/errors-high')?.backtest;
    expect(bt?.before).toMatchObject({ status: 'ok', evaluated: 2016 });
    expect(Number(bt?.firing)).toBeLessThanOrEqual(Number(bt?.before?.firing));
  });

  it('--backtest DURATION, --no-backtest, --backtest-budget, and defaults.backtest in obsync.yaml', async () => {
    const day = targetDoc((await cli('selfhosted', 'plan', '--output', 'json', '--backtest', '1d')).stdout);
    expect(day.resource_changes.find((r) => r.obsync_address === 'Alert/errors-high')?.backtest).toMatchObject({
      window: '1d',
      evaluated: 288,
    });

    sandbox.clearRequests();
    const off = targetDoc((await cli('selfhosted', 'plan', '--output', 'json', '--no-backtest')).stdout);
    expect(off.resource_changes.some((r) => r.backtest)).toBe(false);
    expect(off.backtest).toBeUndefined();
    expect(seriesRequests()).toEqual([]);

    const broke = targetDoc((await cli('selfhosted', 'plan', '--output', 'json', '--backtest-budget', '2')).stdout);
    expect(broke.resource_changes.find((r) => r.obsync_address === 'Alert/errors-high')?.backtest).toMatchObject({ status: 'skipped' });

    const bad = await cli('selfhosted', 'plan', '--backtest', '7 days');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--backtest '7 days' is not a history like 1d, 12h or 7d");

    config('defaults: {backtest: false}');
    sandbox.clearRequests();
    expect(targetDoc((await cli('selfhosted', 'plan', '--output', 'json')).stdout).backtest).toBeUndefined();
    expect(seriesRequests()).toEqual([]);
    // A flag wins over obsync.yaml.
    expect(targetDoc((await cli('selfhosted', 'plan', '--output', 'json', '--backtest', '2d')).stdout).backtest).toMatchObject({
      window: '2d',
    });

    config('defaults: {backtest: {window: 2d, budget: 3}}');
    const configured = targetDoc((await cli('selfhosted', 'plan', '--output', 'json')).stdout);
    // 2 for the alert's two days, 1 to check its source (the budget has room for it).
    expect(configured.backtest).toMatchObject({ window: '2d', budget: 3, requests: 3 });
  });
});

describe('backtests on hosted', () => {
  it('say "not available on hosted" and ask nothing', async () => {
    sandbox.clearRequests();
    const text = await cli('hosted', 'plan');
    expect(unwrapped(text.stdout)).toContain('backtest unavailable: not available on hosted (no chart series API)');
    expect(text.stdout).toContain('Backtest: not available on hosted: the hosted API serves no chart series queries.');
    const json = targetDoc((await cli('hosted', 'plan', '--output', 'json')).stdout);
    expect(json.resource_changes.find((r) => r.obsync_address === 'Alert/errors-high')?.backtest).toMatchObject({ status: 'unavailable' });
    expect(sandbox.requests().some((r) => r.path.includes('charts'))).toBe(false);
    // Like the real hosted API, the sandbox's hosted side has no chart route at all.
    const c = sandbox.credentials;
    const res = await fetch(`${sandbox.url}/v1/organizations/${c.organizationId}/services/${c.serviceId}/clickstack/charts/series`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(res.status).toBe(404);
  });
});

function portFor(variant: 'hosted' | 'self-hosted'): ServicePort {
  const c = sandbox.credentials;
  const common = { baseUrl: sandbox.url, concurrency: 2, timeoutMs: 5000, retries: 0, pacing: { limit: 0, windowMs: 1 }, embedded: false };
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

describe.each([
  ['hosted', 'hosted'],
  ['selfhosted', 'self-hosted'],
] as const)('a webhook deletion the service would refuse (%s)', (target, variant) => {
  it('is predicted by the plan, named with the alert that holds it, and never sent', async () => {
    const hook = doc('Webhook', 'doomed', "{service: generic, name: Doomed hook, url: 'https://hooks.example.com/doomed-7c1e'}");
    // Another webhook stays declared: prune never empties a kind.
    const kept = doc('Webhook', 'kept', "{service: generic, name: Kept hook, url: 'https://hooks.example.com/kept-2b9d'}");
    manifests(board, alert(20), hook, kept);
    expect((await cli(target, 'apply', '--auto-approve', '--no-backtest')).code).toBe(0);
    const port = portFor(variant);
    const live = await collectionOf(port, 'Webhook').list();
    const doomed = live.find((w) => w.name === 'Doomed hook');
    const dashboards = await collectionOf(port, 'Dashboard').list();
    const tile = dashboards.find((d) => d.name === 'Board')?.tiles[0];
    const dashboardId = dashboards.find((d) => d.name === 'Board')?.id;
    if (!doomed || !tile || !dashboardId) throw new Error('setup');
    const handMade = await collectionOf(port, 'Alert').create({
      source: 'tile',
      dashboardId,
      tileId: tile.id,
      name: 'Hand-made',
      threshold: 1,
      thresholdType: 'above',
      interval: '15m',
      channels: [{ type: 'webhook', webhookId: doomed.id }],
    });
    await port.close();
    manifests(board, alert(20), kept);

    const text = await cli(target, 'plan', '--prune', '--no-backtest');
    expect(text.code).toBe(1);
    expect(text.stdout.replace(/\n +/g, ' ')).toContain(
      'Webhook/doomed: not deleted: the service refuses to delete it (HTTP 409) while 1 object(s) still use it',
    );
    expect(text.stdout.replace(/\n +/g, ' ')).toContain(`Alert 'Hand-made' (id ${handMade.id}), which obsync does not own`);
    const json = targetDoc((await cli(target, 'plan', '--prune', '--no-backtest', '--output', 'json')).stdout);
    expect(json.prune.blocked.find((b) => b.address === 'Webhook/doomed')?.usedBy).toEqual([
      expect.objectContaining({ id: handMade.id, name: 'Hand-made', owned: false }),
    ]);

    sandbox.clearRequests();
    const apply = await cli(target, 'apply', '--prune', '--auto-approve', '--no-backtest');
    expect(apply.code).toBe(1);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(sandbox.requests().some((r) => r.status === 409)).toBe(false);
  });
});
