/**
 * Issue 20, outputs, end to end: the CLI as a child process against the sandbox, both variants.
 * `plan --output json|markdown|text` with their exit codes, the JSON validated by the committed
 * schemas, a saved plan applied, the apply report, errors in every format; plan and apply's
 * policy findings as SARIF (issue 43).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { OUTPUT_FORMAT_VERSION } from '../../src/render/plan-schema.js';
import { alertYaml, dashboardYaml } from '../support/plans.js';
import { sarifValidator } from '../support/sarif.js';

let sandbox: SandboxHandle;
let dir: string;

function schema(file: string): ValidateFunction {
  return new Ajv({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(`docs/schema/${file}`, 'utf8')) as object);
}

function valid(validate: ValidateFunction, text: string): Record<string, unknown> {
  const doc = JSON.parse(text) as Record<string, unknown>;
  validate(doc);
  expect(validate.errors ?? []).toEqual([]);
  return doc;
}

beforeAll(() => assertBuilt());

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-outputs-'));
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1
kind: Config
manifests: [m]
targets:
  - {name: hosted, variant: hosted, baseUrl: ${sandbox.url}, organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, ` +
      `credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}, rateLimit: {requests: 1000, perSeconds: 1}}
  - {name: selfhosted, variant: self-hosted, baseUrl: ${sandbox.url}, credentials: {apiKey: ${c.apiKey}}}
`,
  );
  manifests(500);
  return async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  };
});

function manifests(threshold: number, extra = ''): void {
  rmSync(join(dir, 'm'), { recursive: true, force: true });
  mkdirSync(join(dir, 'm'));
  writeFileSync(
    join(dir, 'm/board.yaml'),
    dashboardYaml('board', 'Board', [
      { key: 'p99', name: 'p99', level: 0.99 },
      { key: 'rps', name: 'Requests' },
    ]),
  );
  writeFileSync(
    join(dir, 'm/alert.yaml'),
    alertYaml('board-p99', { dashboard: 'board', tile: 'p99', threshold, interval: '5m', webhook: 'ops-slack' }) + extra,
  );
}

describe.each(['hosted', 'selfhosted'])('plan and apply outputs (%s)', (target) => {
  const cli = (...args: string[]) => runCli([...args, '--target', target], { cwd: dir });

  it('plan --output json|markdown|text, exit codes, a saved plan applied, the apply report', async () => {
    const plan = schema('plan.schema.json');
    const json = await cli('plan', '--output', 'json', '--detailed-exitcode');
    expect(json.code).toBe(2);
    const doc = valid(plan, json.stdout) as {
      applyable: boolean;
      targets: { target: string }[];
      resource_changes: { address: string; change: { actions: string[] } }[];
    };
    expect(doc.applyable).toBe(true);
    expect(doc.targets.map((t) => t.target)).toEqual([target]);
    expect(doc.resource_changes.map((c) => `${c.change.actions.join('+')} ${c.address}`)).toEqual([
      `create module.${target}.Dashboard.board`,
      `create module.${target}.Alert.board-p99`,
    ]);
    expect((await cli('plan', '--output', 'json')).code).toBe(0);

    const md = await cli('plan', '--output', 'markdown', '--detailed-exitcode');
    expect(md.code).toBe(2);
    expect(md.stdout).toContain(`### obsync plan for \`${target}\``);
    expect(md.stdout).toMatch(/\| `rps` Requests \| added \|/);

    const text = await cli('plan', '--out', 'plan.json', '--detailed-exitcode');
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('+ Dashboard/board');
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('Plan: 2 to create, 0 to update, 0 to delete, 0 unchanged.');
    valid(plan, readFileSync(join(dir, 'plan.json'), 'utf8'));
    const saved = await runCli(['apply', 'plan.json', '--output', 'json'], { cwd: dir });
    expect(saved.code).toBe(0);
    const report = valid(schema('apply-report.schema.json'), saved.stdout) as { summary: Record<string, number>; errored: boolean };
    expect(report.summary).toEqual({ create: 2, update: 0, delete: 0, noop: 0, adopt: 0, move: 0 });
    expect(report.errored).toBe(false);

    manifests(400);
    const changed = await cli('plan', '--output', 'markdown', '--detailed-exitcode');
    expect(changed.code).toBe(2);
    expect(changed.stdout).toContain('threshold 500 → 400');
    const applied = await cli('apply', '--auto-approve', '--output', 'json');
    expect(applied.code).toBe(0);
    expect((valid(schema('apply-report.schema.json'), applied.stdout) as { summary: Record<string, number> }).summary).toMatchObject({
      update: 1,
      noop: 1,
    });

    const none = await cli('plan', '--output', 'json', '--detailed-exitcode');
    expect(none.code).toBe(0);
    expect((valid(plan, none.stdout) as { applyable: boolean }).applyable).toBe(false);
    const unchanged = await cli('plan', '--detailed-exitcode');
    expect(unchanged.stdout).toContain('No changes.');
  });

  it('exits 1 on an object that cannot be planned, with the error in every format before the changes', async () => {
    manifests(
      500,
      `---\n${alertYaml('broken', { dashboard: 'board', tile: 'p99', threshold: 1, interval: '5m', webhook: 'no-such-webhook' })}`,
    );
    const json = await cli('plan', '--output', 'json');
    expect(json.code).toBe(1);
    const doc = valid(schema('plan.schema.json'), json.stdout) as { errored: boolean; targets: { diagnostics: { message: string }[] }[] };
    expect(doc.errored).toBe(true);
    expect(doc.targets[0]?.diagnostics[0]?.message).toContain("webhook 'no-such-webhook' does not exist");
    const text = await cli('plan');
    expect(text.code).toBe(1);
    expect(text.stdout.indexOf('no-such-webhook')).toBeLessThan(text.stdout.indexOf('+ Dashboard/board'));
    expect(text.stdout).not.toContain('No changes');
    const md = await cli('plan', '--output', 'markdown');
    expect(md.code).toBe(1);
    expect(md.stdout.indexOf('[!CAUTION]')).toBeLessThan(md.stdout.indexOf('| object |'));
  });
});

describe('a saved plan', () => {
  it('of an older format is refused, naming both versions and what to do', async () => {
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ formatVersion: 2, target: 'hosted', steps: [] }));
    const res = await runCli(['apply', 'old.json'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`old.json has plan format version 2; this obsync applies version ${OUTPUT_FORMAT_VERSION} plans only`);
    expect(res.stderr).toContain('obsync plan --out FILE');
  });
});

const POLICY = `apiVersion: obsync/v1
kind: Policy
metadata: {name: house-rules}
spec:
  rules:
    - id: team-prefix
      severity: error
      kinds: [Dashboard]
      expression: object.spec.name.startsWith("Team ")
      message: dashboard names start with the team
    - id: low-threshold
      severity: warning
      kinds: [Alert]
      expression: object.spec.threshold < 100
      message: keep thresholds low
`;

describe('policy findings as SARIF', () => {
  it('plan and apply --output sarif print every finding as SARIF 2.1.0; the apply is refused on the error, nothing written', async () => {
    mkdirSync(join(dir, 'policies'));
    writeFileSync(join(dir, 'policies/house.yaml'), POLICY);
    const validate = sarifValidator();
    // The built-in alert-channel is off by default: the alert's webhook, declared by no manifest, is no finding.
    const expected = [
      ['low-threshold', 'warning', 'm/alert.yaml', 1],
      ['team-prefix', 'error', 'm/board.yaml', 1],
    ];
    sandbox.clearRequests();
    let stderr = '';
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const r = await runCli([...command, '--output', 'sarif', '--no-backtest', '--target', 'selfhosted'], { cwd: dir });
      expect(r.code, r.stderr).toBe(1);
      const log = JSON.parse(r.stdout) as { runs: { results: { ruleId: string; level: string; locations: SarifLocation[] }[] }[] };
      expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
      const results = log.runs[0]?.results ?? [];
      expect(results.map((x) => [x.ruleId, x.level, ...where(x.locations)])).toEqual(expected);
      stderr = r.stderr;
    }
    expect(stderr).toContain("apply refused on target 'selfhosted': 1 policy error(s)");
    expect(stderr).toContain('m/board.yaml:1: Dashboard/board: dashboard names start with the team [team-prefix]');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

type SarifLocation = { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } };

function where(locations: readonly SarifLocation[]): [string, number] {
  const at = locations[0]?.physicalLocation;
  return [at?.artifactLocation.uri ?? '', at?.region.startLine ?? 0];
}
