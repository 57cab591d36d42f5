/**
 * End to end, issue 15: a tree with all seven kinds (those the variant serves) applied by the real
 * CLI to the real sandbox on both variants: it converges, heals drift on a sensitive field and a
 * rotated password without ever printing a secret, and prunes the new kinds in a safe order,
 * leaving the service's own objects alone. A pruned webhook's URL, which no manifest names any
 * more, is masked in a saved plan too.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { Secret } from '../../src/core/secret.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, type CliResult } from '../support/cli.js';

const HOOK_URL = 'https://hooks.example.com/e2e/T0KEN-4f1d9c';
const HAND_URL = 'https://hooks.example.com/e2e/HAND-8a2b7e';
const HOOK_TOKEN = 'Bearer e2e-header-token-5d3c';
const PASSWORDS = ['e2e-ch-password-one-7e1f', 'e2e-ch-password-two-2b9a'];

let sandbox: SandboxHandle;
beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
});
afterAll(() => sandbox.close());

function config(variant: 'hosted' | 'self-hosted'): string {
  const c = sandbox.credentials;
  const credentials =
    variant === 'hosted'
      ? `organizationId: ${c.organizationId}\n    serviceId: ${c.serviceId}\n    credentials: {keyId: ${c.keyId}, keySecret: ` +
        `${c.keySecret}}`
      : `credentials: {apiKey: ${c.apiKey}}`;
  // no pipes on self-hosted
  const paths = variant === 'hosted' ? '[kinds, team, e2e.yaml]' : '[kinds, team/dashboards, team/alerts, self-hosted, e2e.yaml]';
  return (
    `apiVersion: obsync/v1\nkind: Config\nmanifests: ${paths}\nstate: {backend: file, path: .obsync/state}\ntargets:\n  - name: ` +
    `t\n    variant: ${variant}\n    baseUrl: ${sandbox.url}\n    ${credentials}\n    rateLimit: {requests: 1000, perSeconds: 1}\n`
  );
}

/** Objects of the new kinds, with secrets from the environment; `extra` ones are pruned later. */
function e2eManifests(variant: 'hosted' | 'self-hosted', extra: boolean): string {
  const connection = variant === 'hosted' ? '{id: 5eed00000000000000000002}' : 'e2e-ch';
  const docs = [
    `kind: Webhook\nmetadata: {name: e2e-hook}\nspec: {service: generic, name: E2E hook, url: "\${env:HOOK_URL}", headers: ` +
      `{Authorization: "\${env:HOOK_TOKEN}"}}`,
    `kind: Source\nmetadata: {name: e2e-metrics}\nspec: {kind: metric, name: E2E metrics, connection: ${connection}, from: ` +
      `{databaseName: default, tableName: ''}, timestampValueExpression: TimeUnix, resourceAttributesExpression: ResourceAttributes, ` +
      `metricTables: {gauge: otel_metrics_gauge}, logSource: example-logs}`,
  ];
  if (variant === 'self-hosted')
    docs.push(
      `kind: Connection\nmetadata: {name: e2e-ch}\nspec: {name: E2E ClickHouse, host: 'http://ch-e2e:8123', username: e2e, password: ` +
        `"\${env:CH_PASSWORD}"}`,
    );
  if (extra) {
    docs.push(`kind: SavedSearch\nmetadata: {name: e2e-search}\nspec: {name: E2E search, source: e2e-metrics, where: 'x:1'}`);
    docs.push(
      `kind: Alert\nmetadata: {name: e2e-alert}\nspec: {savedSearch: e2e-search, threshold: 1, thresholdType: above, interval: 5m, ` +
        `channel: {type: webhook, webhook: e2e-doomed-hook}, name: E2E alert}`,
    );
    docs.push(`kind: Webhook\nmetadata: {name: e2e-doomed-hook}\nspec: {service: generic, name: E2E doomed, url: "\${env:DOOMED_URL}"}`);
    docs.push(
      `kind: Source\nmetadata: {name: e2e-extra-logs}\nspec: {kind: log, name: E2E extra logs, connection: ${connection}, from: ` +
        `{databaseName: default, tableName: extra}, timestampValueExpression: T, defaultTableSelectExpression: Body, traceSource: ` +
        `Traces}`,
    );
  }
  return docs.map((d) => `apiVersion: obsync/v1\n${d}\n`).join('---\n');
}

const DOOMED_URL = 'https://hooks.example.com/e2e/DOOMED-c3e4a1';
const SECRETS = [HOOK_URL, HAND_URL, HOOK_TOKEN, DOOMED_URL, ...PASSWORDS];

function expectNoSecret(...texts: string[]): void {
  for (const text of texts) for (const secret of SECRETS) expect(text, secret).not.toContain(secret);
}

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

describe.each(['hosted', 'self-hosted'] as const)('all kinds on the %s variant', (variant) => {
  it('apply, converge, heal drift on secrets, prune in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), `obsync-kinds-${variant}-`));
    const port = portFor(variant);
    try {
      cpSync('config-examples/kinds', join(dir, 'kinds'), { recursive: true });
      if (variant === 'self-hosted') rmSync(join(dir, 'kinds/pipe.yaml')); // pipes are hosted only
      cpSync('config-examples/team', join(dir, 'team'), { recursive: true });
      cpSync('config-examples/self-hosted', join(dir, 'self-hosted'), { recursive: true });
      cpSync('config-examples/obsync.schema.json', join(dir, 'obsync.schema.json'));
      writeFileSync(join(dir, 'obsync.yaml'), config(variant));
      writeFileSync(join(dir, 'e2e.yaml'), e2eManifests(variant, true));
      let password = PASSWORDS[0] ?? '';
      const cli = async (...args: string[]): Promise<CliResult> => {
        const res = await runCli(args, { cwd: dir, env: { HOOK_URL, HOOK_TOKEN, DOOMED_URL, CH_PASSWORD: password } });
        expectNoSecret(res.stdout, res.stderr);
        return res;
      };
      type TargetPlan = { steps: { address: string; action: string; reason: string; changes: { path: string; sensitive?: boolean }[] }[] };
      const planJson = async (...args: string[]): Promise<TargetPlan> => {
        const [only] = (JSON.parse((await cli('plan', '--output', 'json', ...args)).stdout) as { targets: TargetPlan[] }).targets;
        if (!only) throw new Error('no target in the plan');
        return only;
      };
      const changed = (plan: Awaited<ReturnType<typeof planJson>>) => plan.steps.filter((s) => s.action !== 'noop');

      const first = await cli('apply', '--auto-approve');
      expect(first.stderr).not.toMatch(/^error|failed/m);
      expect(first.code).toBe(0);
      const kinds = new Set((await planJson()).steps.map((s) => s.address.split('/')[0]));
      expect(kinds).toEqual(
        new Set(
          variant === 'hosted'
            ? ['Dashboard', 'Alert', 'Pipe', 'Source', 'Webhook', 'SavedSearch']
            : ['Dashboard', 'Alert', 'Source', 'Webhook', 'SavedSearch', 'Connection'],
        ),
      );
      expect((await cli('plan', '--detailed-exitcode')).code).toBe(0);

      // Drift on a readable secret: the webhook's URL changed by hand.
      const hook = (await collectionOf(port, 'Webhook').list()).find((w) => w.name === 'E2E hook');
      if (!hook) throw new Error('no E2E hook');
      await collectionOf(port, 'Webhook').update(hook.id, { name: hook.name, service: hook.service, url: HAND_URL });
      const drift = changed(await planJson());
      expect(drift.map((s) => [s.address, s.reason, s.changes.map((c) => [c.path, c.sensitive])])).toEqual([
        ['Webhook/e2e-hook', 'drifted', [['url', true]]],
      ]);
      expect((await cli('apply', '--auto-approve')).code).toBe(0);
      expect((await collectionOf(port, 'Webhook').list()).find((w) => w.id === hook.id)?.url).toBe(HOOK_URL);
      expect((await cli('plan', '--detailed-exitcode')).code).toBe(0);

      if (variant === 'self-hosted') {
        // A rotated write-only password: seen by its fingerprint, sent once.
        password = PASSWORDS[1] ?? '';
        expect(changed(await planJson()).map((s) => [s.address, s.reason, s.changes.map((c) => [c.path, c.sensitive])])).toEqual([
          ['Connection/e2e-ch', 'spec-changed', [['password', true]]],
        ]);
        expect((await cli('apply', '--auto-approve')).code).toBe(0);
        expect((await cli('plan', '--detailed-exitcode')).code).toBe(0);
      }

      // Prune the extra objects: alerts first, then webhooks, saved searches, sources.
      writeFileSync(join(dir, 'e2e.yaml'), e2eManifests(variant, false));
      expect((await cli('plan', '--prune', '--out', 'plan.json')).code).toBe(0);
      const saved = readFileSync(join(dir, 'plan.json'), 'utf8');
      expectNoSecret(saved);
      expect(saved).toContain('E2E doomed');
      const pruned = await cli('apply', 'plan.json', '--auto-approve');
      expect(pruned.code).toBe(0);
      const deletes = (JSON.parse(saved) as { targets: { steps: { address: string; action: string }[] }[] }).targets
        .flatMap((t) => t.steps)
        .filter((s) => s.action === 'delete')
        .map((s) => s.address);
      expect(deletes).toEqual(['Alert/e2e-alert', 'Webhook/e2e-doomed-hook', 'SavedSearch/e2e-search', 'Source/e2e-extra-logs']);
      expect((await cli('plan', '--prune', '--detailed-exitcode')).code).toBe(0);

      // The service's own objects were never touched.
      expect((await collectionOf(port, 'Source').list()).map((s) => s.name)).toEqual(expect.arrayContaining(['Logs', 'Traces', 'Metrics']));
      expect((await collectionOf(port, 'Webhook').list()).map((w) => w.name)).toEqual(expect.arrayContaining(['ops-slack', 'ops-webhook']));
      expect((await collectionOf(port, 'SavedSearch').list()).map((s) => s.name)).toContain('Errors');
      if (variant === 'self-hosted') expect((await collectionOf(port, 'Connection').list()).map((c) => c.name)).toContain('Default');
    } finally {
      await port.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
