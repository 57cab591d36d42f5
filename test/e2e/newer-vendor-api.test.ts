/**
 * Issue 49: a Source of kind netflow end to end on the self-hosted sandbox, in process: plan and
 * apply create it with its flow mappings, the next plan is empty, a mapping changed on the
 * service is drift the next apply puts back, and an export adopted in a fresh project plans to
 * no change. A dashboard over it keeps a variable filter's saved selection (savedFilterValues
 * `{type: variable}`, newer than b52a6fa8) through the same steps. A hosted alert every 30s
 * passes validate and plan (the service decides) and, without the team's feature flag, apply
 * fails with the service's reason.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';

let sandbox: SandboxHandle;
const dirs: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
});
afterAll(async () => {
  await sandbox.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const FLOWS = `apiVersion: obsync/v1
kind: Source
metadata: {name: flows}
spec:
  kind: netflow
  name: Network flows
  connection: Default
  from: {databaseName: default, tableName: flows}
  timestampValueExpression: TimeReceived
  defaultTableSelectExpression: TimeReceived, SrcAddr, DstAddr, Bytes
  bytesExpression: Bytes
  packetsExpression: Packets
  srcAddrExpression: SrcAddr
  dstAddrExpression: DstAddr
  srcPortExpression: SrcPort
  dstPortExpression: DstPort
  protocolExpression: Proto
  samplingRateExpression: SamplingRate
  exporterExpression: ExporterName
  outIfExpression: OutIfName
---
apiVersion: obsync/v1
kind: Dashboard
metadata: {name: flows-overview}
spec:
  name: Flows overview
  tiles: []
  filters:
    - {type: QUERY_EXPRESSION, name: Protocol, expression: Proto, source: flows, isVariableEnabled: true, variableName: proto}
  savedFilterValues:
    - {condition: "Bytes > 0"}
    - {type: variable, name: proto, values: ['6', '17']}
`;

function project(manifests: string | null, variant: 'self-hosted' | 'hosted' = 'self-hosted') {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-newer-'));
  dirs.push(dir);
  const c = sandbox.credentials;
  const target =
    variant === 'self-hosted'
      ? `{name: t, variant: self-hosted, baseUrl: ${sandbox.url}, credentials: {apiKey: ${c.apiKey}}}`
      : `{name: t, variant: hosted, baseUrl: ${sandbox.url}, organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, ` +
        `credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}}`;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: file, path: .obsync/state}\ntargets:\n  - ${target}\n`,
  );
  mkdirSync(join(dir, 'manifests'));
  if (manifests !== null) writeFileSync(join(dir, 'manifests', 'sources.yaml'), manifests);
  return (...args: string[]) => runCli(args, { cwd: dir });
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; data: unknown }> {
  const res = await fetch(`${sandbox.url}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, data: ((await res.json()) as { data: unknown }).data };
}

type Row = Record<string, unknown> & { id: string; kind: string };

describe('the newer vendor API as code: netflow sources, saved variable selections, 30s alerts', () => {
  it('plan, apply, an empty next plan, drift put back, and an adopted export that plans to no change', { timeout: 60_000 }, async () => {
    const obsync = project(FLOWS);
    const plan = await obsync('plan', '--detailed-exitcode');
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('Source/flows  (create');
    expect(plan.stdout).toContain('Plan: 2 to create, 0 to update, 0 to delete');
    const apply = await obsync('apply', '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);

    const flows = ((await api('GET', '/sources')).data as Row[]).filter((s) => s.kind === 'netflow');
    expect(flows).toHaveLength(1);
    const created = flows[0] as Row;
    expect(created).toMatchObject({ name: 'Network flows', protocolExpression: 'Proto', outIfExpression: 'OutIfName' });
    expect(created).not.toHaveProperty('inIfExpression');
    const overview = ((await api('GET', '/dashboards')).data as Row[]).find((d) => d.name === 'Flows overview');
    expect(overview?.savedFilterValues).toEqual([
      { type: 'sql', condition: 'Bytes > 0' },
      { type: 'variable', name: 'proto', values: ['6', '17'] },
    ]);

    const again = await obsync('plan', '--detailed-exitcode');
    expect(again.code, again.stdout).toBe(0);

    // Drift: someone remaps the protocol column on the service.
    const { id, ...body } = created;
    expect((await api('PUT', `/sources/${id}`, { ...body, protocolExpression: 'Protocol' })).status).toBe(200);
    const drift = await obsync('plan', '--detailed-exitcode');
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('protocolExpression');
    expect((await obsync('apply', '--auto-approve')).code).toBe(0);
    expect(((await api('GET', `/sources/${id}`)).data as Row).protocolExpression).toBe('Proto');

    const fresh = project(null);
    const exported = await fresh('export', '--kind', 'Source', 'Dashboard', '--adopt');
    expect(exported.code, exported.stderr).toBe(0);
    const roundTrip = await fresh('plan', '--detailed-exitcode');
    expect(roundTrip.code, roundTrip.stdout + roundTrip.stderr).toBe(0);
  });

  it('leaves an alert every 30s to the hosted service: validate and plan take it, apply reports why it was refused', {
    timeout: 60_000,
  }, async () => {
    const obsync = project(
      'apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: fast}\nspec: {savedSearch: Errors, interval: 30s, threshold: 1, ' +
        'thresholdType: above, channel: {type: webhook, webhook: ops-slack}}\n',
      'hosted',
    );
    expect((await obsync('plan', '--detailed-exitcode')).code).toBe(2);
    const apply = await obsync('apply', '--auto-approve');
    expect(apply.code).not.toBe(0);
    expect(apply.stdout + apply.stderr).toContain('The 30s alert interval needs a feature flag this service does not have');
  });
});
