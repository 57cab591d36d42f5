/**
 * obsync's own hosted client held to what ClickHouse's clients do against the real API (see
 * SOURCES.md): the Cloud path segments, a 404 page read as an unserved route (never as a
 * deleted object), the idle-service wake of the Terraform provider, scaling numbers and the
 * alert groupBy rule, and `obsync keys create` with role UUIDs. Each test names its source.
 */
import { collectionOf } from '../../../src/kinds/registry.js';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../../src/config/targets.js';
import { ApiError } from '../../../src/core/errors.js';
import type { HostedTarget } from '../../../src/core/target.js';
import { applyPlanned, makePlan } from '../../../src/engine/run.js';
import { SELECT_ALL } from '../../../src/engine/selection.js';
import { memoryInventory } from '../../../src/inventory/memory-store.js';
import { loadManifests } from '../../../src/manifests/load.js';
import { createServicePort } from '../../../src/remote/index.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../../support/cli.js';
import { apiKeyPostResponseModel, cloud, sandbox, waitFor } from './support.js';

const dirs: string[] = [];
let scripted: Server | undefined;
afterEach(async () => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await new Promise<void>((r) => (scripted ? scripted.close(() => r()) : r()));
  scripted = undefined;
});

function hostedTarget(h: SandboxHandle, paths?: HostedTarget['paths'], baseUrl = h.url): HostedTarget {
  const c = h.credentials;
  const resolved = resolveTarget({
    config: {
      apiVersion: 'obsync/v1',
      kind: 'Config',
      targets: [
        {
          name: 'cloud',
          variant: 'hosted',
          baseUrl,
          organizationId: c.organizationId,
          serviceId: c.serviceId,
          credentials: { keyId: c.keyId, keySecret: c.keySecret },
          ...(paths ? { paths } : {}),
        },
      ],
    },
    name: 'cloud',
    env: {},
    readFile: () => '',
  });
  if (resolved.kind !== 'remote' || resolved.target.variant !== 'hosted') throw new Error('expected a hosted target');
  return { ...resolved.target, pacing: { limit: 0, windowMs: 1 }, retries: 0 };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-peer-'));
  dirs.push(dir);
  return dir;
}

const pathsOf = (h: SandboxHandle, method?: string) =>
  h
    .requests()
    .filter((r) => method === undefined || r.method === method)
    .map((r) => r.path);

describe(
  'hosted path segments (hosted-api §2-3; provider clickstack/client NewCloud and internal/api getClickPipePath; clickhousectl ' +
    'client paths)',
  () => {
    it('a hosted target without paths talks to …/clickstack and …/clickpipes', async () => {
      const h = await sandbox();
      const target = hostedTarget(h);
      expect(target.paths).toEqual({ observability: 'clickstack', pipes: 'clickpipes' });
      const port = createServicePort(target);
      await collectionOf(port, 'Dashboard').list();
      await collectionOf(port, 'Pipe').list();
      await port.close();
      const service = `/v1/organizations/${h.credentials.organizationId}/services/${h.credentials.serviceId}`;
      expect(pathsOf(h)).toEqual([`${service}/clickstack/dashboards`, `${service}/clickpipes`]);
    });

    it('paths still renames them', async () => {
      const h = await sandbox();
      const port = createServicePort(hostedTarget(h, { observability: 'observability', pipes: 'pipes' }));
      await collectionOf(port, 'Dashboard').list();
      await port.close();
      expect(pathsOf(h)[0]).toMatch(/\/observability\/dashboards$/);
    });
  },
);

describe('client_cloud_test.go TestCloudRouteNotFound404 / TestCloudUnroutedPathSurfacesServerError, for obsync', () => {
  it('a 404 page on the first list names the paths setting to check', async () => {
    const h = await sandbox();
    const port = createServicePort(hostedTarget(h, { observability: 'observabilty', pipes: 'clickpipes' }));
    const err = await collectionOf(port, 'Dashboard')
      .list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/no such route.*paths\.observability/);
    expect((err as ApiError).hint).toMatch(/paths\.observability \(now 'observabilty'; ClickHouse Cloud serves 'clickstack'\)/);
    const pipes = createServicePort(hostedTarget(h, { observability: 'clickstack', pipes: 'pipe' }));
    expect(
      (
        (await collectionOf(pipes, 'Pipe')
          .list()
          .catch((e: unknown) => e)) as ApiError
      ).message,
    ).toMatch(/paths\.pipes/);
    await Promise.all([port.close(), pipes.close()]);
  });

  it('a wrong baseUrl (an extra /v1) is named too', async () => {
    const h = await sandbox();
    const port = createServicePort(hostedTarget(h, undefined, `${h.url}/v1`));
    const err = (await collectionOf(port, 'Dashboard')
      .list()
      .catch((e: unknown) => e)) as ApiError;
    expect(err.hint).toMatch(/baseUrl/);
    await port.close();
  });

  it('a 404 page is never read as a deleted object: get and delete fail instead of answering "gone"', async () => {
    const h = await sandbox();
    const port = createServicePort(hostedTarget(h, { observability: 'wrong', pipes: 'clickpipes' }));
    await expect(collectionOf(port, 'Dashboard').get('0123456789abcdef01234567')).rejects.toThrow(/no such route/);
    await expect(collectionOf(port, 'Alert').delete('0123456789abcdef01234567')).rejects.toThrow(/no such route/);
    // A JSON 404 still means gone.
    const good = createServicePort(hostedTarget(h));
    expect(await collectionOf(good, 'Dashboard').get('0123456789abcdef01234567')).toBeNull();
    await collectionOf(good, 'Alert').delete('0123456789abcdef01234567');
    await Promise.all([port.close(), good.close()]);
  });
});

describe('internal/api/clickpipe_test.go, for obsync (424 on an idle service)', () => {
  it('TestCreateClickPipe_WakesIdleServiceAndRetries: wakes the idle service, waits for running, replays the call', async () => {
    const h = await sandbox();
    h.service.idle();
    const port = createServicePort(hostedTarget(h));
    const pipes = await collectionOf(port, 'Pipe').list();
    expect(pipes?.length).toBe(4);
    await port.close();
    const service = `/v1/organizations/${h.credentials.organizationId}/services/${h.credentials.serviceId}`;
    expect(h.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(
      expect.arrayContaining([
        `GET ${service}/clickpipes 424`,
        `PATCH ${service}/state 200`,
        `GET ${service} 200`,
        `GET ${service}/clickpipes 200`,
      ]),
    );
    expect(h.service.state()).toBe('running');
  });

  it('calls that meet the idle service together share one wake-up', async () => {
    const h = await sandbox();
    h.service.idle();
    const port = createServicePort(hostedTarget(h));
    const pipes = collectionOf(port, 'Pipe');
    const ids = ['5eedc1b0-0000-4000-8000-000000000001', '5eedc1b0-0000-4000-8000-000000000002', '5eedc1b0-0000-4000-8000-000000000003'];
    await Promise.all(ids.map((id) => pipes.get(id)));
    await port.close();
    expect(pathsOf(h, 'PATCH')).toHaveLength(1);
  });

  it('TestCreateClickPipe_StoppedService424_DoesNotWake: a stopped service is a clear error and is never started', async () => {
    const h = await sandbox();
    const api = cloud(h);
    await api.result('PATCH', `${api.service}/state`, { command: 'stop' });
    const port = createServicePort(hostedTarget(h));
    await waitFor(
      'stopped',
      async () => ((await api.result('GET', api.service)) as { state: string }).state,
      (s) => s === 'stopped',
    );
    h.clearRequests();
    const err = (await collectionOf(port, 'Pipe')
      .list()
      .catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('SERVICE_NOT_RUNNING');
    expect(err.message).toMatch(/service is stopped/);
    expect(err.hint).toMatch(/start the service/);
    expect(pathsOf(h, 'PATCH')).toEqual([]);
    await port.close();
  });

  it('TestCreateClickPipe_WakeFails_ReturnsError: a refused wake-up surfaces as "waking it up failed"', async () => {
    scripted = createServer((req, res) => {
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url?.endsWith('/clickpipes'))
        return reply(424, {
          requestId: 'x',
          error: 'FAILED_DEPENDENCY: ClickPipe creation is allowed only when the ClickHouse service is running. Current state: idle',
          status: 424,
        });
      if (req.method === 'PATCH' && req.url?.endsWith('/state')) return reply(403, { status: 403, error: 'forbidden' });
      reply(500, { status: 500, error: `unexpected ${req.method ?? ''} ${req.url ?? ''}` });
    });
    await new Promise<void>((r) => scripted?.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(scripted.address() as AddressInfo).port}`;
    const h = await sandbox();
    const port = createServicePort(hostedTarget(h, undefined, url));
    const err = (await collectionOf(port, 'Pipe')
      .list()
      .catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('SERVICE_WAKE');
    expect(err.message).toMatch(/is idle and waking it up failed/);
    await port.close();
  });
});

describe('managed pipes and alerts converge on the hosted sandbox', () => {
  function manifests(files: Record<string, string>): string {
    const dir = tempDir();
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  }

  async function applyTwice(h: SandboxHandle, dir: string): Promise<{ first: number; second: { update: number; create: number } }> {
    const port = createServicePort(hostedTarget(h));
    const loaded = loadManifests([dir], { env: {} });
    expect(loaded.diagnostics).toEqual([]);
    const inventory = memoryInventory(port.target);
    const args = { port, inventory, desired: loaded.resources, selection: SELECT_ALL, prune: false, maxDeletes: 10 };
    const report = await applyPlanned(await makePlan(args), { port, inventory, concurrency: 2 });
    expect(report.summary.failed).toBe(0);
    const again = await makePlan(args);
    await port.close();
    return { first: report.results.filter((r) => r.outcome === 'applied').length, second: again.plan.summary };
  }

  it('clickhousectl list_click_pipes_with_null_array_fields: scaling declared in numbers converges against numbers', async () => {
    const h = await sandbox();
    const dir = manifests({
      'pipe.yaml': `apiVersion: obsync/v1
kind: Pipe
metadata: {name: clicks}
spec:
  name: clicks-kinesis
  scaling: {replicas: 2, replicaCpuMillicores: 250, replicaMemoryGb: 0.5}
  settings: {streaming_max_insert_wait_ms: 1000}
`,
    });
    const { first, second } = await applyTwice(h, dir);
    expect(first).toBe(1);
    expect(second).toMatchObject({ create: 0, update: 0 });
  });

  it(
    'provider TestUpdateClickPipeSettings_PreservesKafkaReadCommittedBoolean: ' + 'kafka_read_committed is managed like any setting',
    async () => {
      const h = await sandbox();
      const dir = manifests({
        'pipe.yaml': `apiVersion: obsync/v1
kind: Pipe
metadata: {name: orders}
spec:
  name: orders-kafka
  settings: {kafka_read_committed: true}
`,
      });
      const { second } = await applyTwice(h, dir);
      expect(second.update).toBe(0);
      const settings = (await cloud(h).result(
        'GET',
        `${cloud(h).service}/clickpipes/5eedc1b0-0000-4000-8000-000000000001/settings`,
      )) as Record<string, unknown>;
      expect(settings.kafka_read_committed).toBe(true);
    },
  );

  it(
    'provider clickstack/client/alert.go: a saved-search alert ' + 'without groupBy is accepted (obsync never sends groupBy: null)',
    async () => {
      const h = await sandbox();
      const dir = manifests({
        'alert.yaml': `apiVersion: obsync/v1
kind: Alert
metadata: {name: errors-high}
spec:
  savedSearch: Errors
  threshold: 5
  thresholdType: above
  interval: 5m
  channel: {type: webhook, webhook: ops-slack}
  name: Errors above 5
`,
      });
      const { first, second } = await applyTwice(h, dir);
      expect(first).toBe(1);
      expect(second).toMatchObject({ create: 0, update: 0 });
    },
  );
});

describe('provider clickstack/client/alert.go: a groupBy removed from a manifest stays on the hosted API', () => {
  it('is reported as not converging instead of being re-sent forever', async () => {
    const h = await sandbox();
    const dir = tempDir();
    const alert = (groupBy: string) => `apiVersion: obsync/v1
kind: Alert
metadata: {name: errors-high}
spec:
  savedSearch: Errors
  threshold: 5
  thresholdType: above
  interval: 5m
  channel: {type: webhook, webhook: ops-slack}
${groupBy}`;
    const port = createServicePort(hostedTarget(h));
    const inventory = memoryInventory(port.target);
    const run = async () => {
      const loaded = loadManifests([dir], { env: {} });
      const args = { port, inventory, desired: loaded.resources, selection: SELECT_ALL, prune: false, maxDeletes: 10 };
      return applyPlanned(await makePlan(args), { port, inventory, concurrency: 1 });
    };
    writeFileSync(join(dir, 'alert.yaml'), alert('  groupBy: ServiceName\n'));
    await run();
    writeFileSync(join(dir, 'alert.yaml'), alert(''));
    const removed = await run();
    expect(removed.summary.failed).toBe(0);
    expect(removed.results.find((r) => r.address === 'Alert/errors-high')?.nonConvergent?.map((c) => c.path)).toEqual(['groupBy']);
    // The next run leaves it out rather than updating again.
    const third = await run();
    expect(third.results.filter((r) => r.outcome === 'applied')).toEqual([]);
    await port.close();
  });
});

describe('obsync keys create (clickhousectl build_api_key_create_request: assignedRoleIds, an explicit ipAccessList)', () => {
  beforeAll(() => assertBuilt());

  it('sends a role UUID as assignedRoleIds and a legacy role as roles, with the allow-all list when no --ip', async () => {
    const h = await sandbox();
    const c = h.credentials;
    const dir = tempDir();
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(
      join(dir, 'obsync.yaml'),
      `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - {name: cloud, variant: hosted, baseUrl: "${h.url}", organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, credentials: ` +
        `{keyId: ${c.keyId}, keySecret: "\${env:SECRET}"}}
`,
    );
    const roles = (await cloud(h).result('GET', `${cloud(h).org}/roles`)) as { id: string; name: string }[];
    const developer = roles.find((r) => r.name === 'Developer')?.id ?? '';
    const byId = await runCli(['keys', 'create', '--target', 'cloud', '--name', 'ci', '--role', developer], {
      cwd: dir,
      env: { SECRET: c.keySecret },
    });
    expect(byId.code).toBe(0);
    const [key] = byId.stdout.split(/\n(?=\{)/).map((t) => JSON.parse(t) as unknown);
    const parsed = apiKeyPostResponseModel.shape.key.parse(key);
    expect(parsed?.assignedRoles?.map((r) => r.roleId)).toEqual([developer]);
    expect(parsed?.ipAccessList?.map((e) => e.source)).toEqual(['0.0.0.0/0']);
    expect(byId.stderr).toMatch(/usable from any address/);
    const post = h.requests().find((r) => r.method === 'POST');
    expect(post?.status).toBe(200);
    const legacy = await runCli(['keys', 'create', '--target', 'cloud', '--name', 'old', '--role', 'admin', '--ip', '127.0.0.1'], {
      cwd: dir,
      env: { SECRET: c.keySecret },
    });
    expect(legacy.code).toBe(0);
    expect(legacy.stdout).toContain('"roles": [\n    "admin"\n  ]');
    const bad = await runCli(['keys', 'create', '--target', 'cloud', '--name', 'x', '--role', 'owner'], {
      cwd: dir,
      env: { SECRET: c.keySecret },
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown role 'owner'/);
  });
});
