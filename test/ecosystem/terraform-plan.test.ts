/**
 * The JSON plan read by the tools written for `terraform show -json` (issue 30): HashiCorp's
 * terraform-json itself (the release installed here, Debian's golang-github-hashicorp-terraform-
 * json-dev, built into a tiny reader offline; the fields later releases added are decoded with
 * v0.28.0's types) and the jq idioms of Terraform CI guides. The plans are real: the multi-env
 * example (a self-hosted and a hosted target in one document) planned, applied and planned again
 * after an update, a rename, a prune and a change made by hand on the service.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionOf } from '../../src/kinds/registry.js';
import type { PlanDocument } from '../../src/render/plan-schema.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/defaults.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';
import { GOCODE, missingTools, TOOLS } from '../support/tools.js';
import { sandboxPort } from '../support/world.js';

const ENV = { STAGING_API_KEY: SANDBOX_DEFAULTS.apiKey, PROD_KEY_ID: SANDBOX_DEFAULTS.keyId, PROD_KEY_SECRET: SANDBOX_DEFAULTS.keySecret };
/** The readers' tests are skipped off CI without Go, the terraform-json sources or jq; in CI their absence fails the file. */
const missing = missingTools(TOOLS.go, TOOLS.terraformJson, TOOLS.jq);
/** terraform-json v0.28.0 (plan.go, PlanFormatVersionConstraints): the versions the current release reads. */
const CURRENT_CONSTRAINT = { atLeast: [0, 1], below: [2, 0] } as const;

interface ReadChange {
  address: string;
  module_address: string;
  mode: string;
  type: string;
  name: string;
  provider_name: string;
  actions: string[];
  verb: string;
  has_after_unknown: boolean;
  previous_address?: string;
  importing_id?: string;
  action_reason?: string;
  after_sensitive: boolean;
  has_before: boolean;
  before: unknown;
  after: unknown;
}
interface ReadResource {
  address: string;
  module: string;
  mode: string;
  type: string;
  name: string;
  provider: string;
  values: Record<string, unknown> | null;
  sensitive_values?: unknown;
  depends_on?: string[];
}
interface ReadPlan {
  file: string;
  format_version: string;
  resource_changes: ReadChange[];
  resource_drift: ReadChange[];
  planned_values: ReadResource[];
  prior_state: ReadResource[];
  prior_state_format_version: string;
  configuration: ReadResource[];
  complete?: boolean;
  applyable?: boolean;
  errored?: boolean;
  timestamp: string;
}

let dir: string;
let sandbox: SandboxHandle;
let reader: string;
let created: PlanDocument;
let changed: PlanDocument;

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, args, { cwd: dir, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The tiny Go reader, built offline in GOPATH mode against the terraform-json installed here. */
async function buildReader(out: string): Promise<string> {
  const gopath = mkdtempSync(join(tmpdir(), 'obsync-gopath-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: gopath,
    GO111MODULE: 'off',
    GOPATH: `${gopath}:${GOCODE}`,
    GOCACHE: join(tmpdir(), 'obsync-tfjson-gocache'),
    GOPROXY: 'off',
    GOFLAGS: '',
    CGO_ENABLED: '0',
  };
  const res = await new Promise<{ code: number; stderr: string }>((done) =>
    execFile(
      'go',
      ['build', '-o', out, 'main.go'],
      { cwd: join(import.meta.dirname, 'tfjson-reader'), env, timeout: 300_000 },
      (err, _o, stderr) => done({ code: err ? 1 : 0, stderr }),
    ),
  );
  rmSync(gopath, { recursive: true, force: true });
  if (res.code !== 0) throw new Error(`go build of the terraform-json reader failed:\n${res.stderr}`);
  return out;
}

async function readPlans(...files: string[]): Promise<ReadPlan[]> {
  const res = await run(reader, files);
  expect(res.stderr, 'terraform-json read every plan').toBe('');
  expect(res.code).toBe(0);
  return res.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ReadPlan);
}

function jq(filter: string, file: string, ...flags: string[]): string {
  return execFileSync('jq', [...flags, filter, file], { cwd: dir })
    .toString()
    .trim();
}

function replaceIn(file: string, from: string, to: string): void {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
}

async function cli(...args: string[]): Promise<void> {
  const res = await runCli(args, { cwd: dir, env: ENV });
  expect(res.code, `obsync ${args.join(' ')}\n${res.stderr}`).toBe(0);
}

beforeAll(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'obsync-tfplan-'));
  mkdirSync(join(dir, 'bin'));
  const building = missing === null ? buildReader(join(dir, 'bin/tfjson-reader')) : Promise.resolve('');
  cpSync('config-examples/multi-env', dir, { recursive: true });
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 20 });
  writeFileSync(join(dir, 'obsync.yaml'), readFileSync(join(dir, 'obsync.yaml'), 'utf8').replaceAll('http://127.0.0.1:8000', sandbox.url));

  await cli('plan', '--out', 'create.json');
  await cli('apply', 'create.json');
  // An update on both targets, a rename (previousNames), an object pruned, and a change by hand.
  replaceIn('base/alerts/storefront.yaml', 'interval: 5m', 'interval: 1m');
  replaceIn(
    'base/alerts/storefront.yaml',
    'name: storefront-error-logs',
    'name: storefront-errors\n  previousNames: [storefront-error-logs]',
  );
  rmSync(join(dir, 'staging/dashboards/storefront-canary.yaml'));
  const port = sandboxPort(sandbox, 'hosted');
  const dashboards = collectionOf(port, 'Dashboard');
  const board = (await dashboards.list()).find((d) => d.name === 'Storefront (production)');
  if (!board) throw new Error('the production dashboard was not created');
  await dashboards.update(board.id, { name: 'Storefront (edited by hand)', tiles: board.tiles, tags: board.tags } as never);
  await port.close();
  await cli('plan', '--prune', '--out', 'change.json');
  created = JSON.parse(readFileSync(join(dir, 'create.json'), 'utf8')) as PlanDocument;
  changed = JSON.parse(readFileSync(join(dir, 'change.json'), 'utf8')) as PlanDocument;
  reader = await building;
}, 600_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ACTION = { create: 'create', update: 'update', delete: 'delete', noop: 'no-op' } as const;

/** What obsync will do, from the executable steps of each target (not from resource_changes). */
function stepsOf(doc: PlanDocument) {
  return doc.targets.flatMap((t) =>
    t.steps.map((s) => ({ address: `module.${t.target}.${s.kind}.${s.name}`, target: t, step: s, action: ACTION[s.action] })),
  );
}

describe.skipIf(missing !== null)('terraform-json (the release installed here) reads obsync plans', () => {
  it('loads both plans, of a self-hosted and a hosted target, with every object as a managed resource of its target', async () => {
    const [create, change] = await readPlans('create.json', 'change.json');
    for (const [read, doc] of [
      [create, created],
      [change, changed],
    ] as const) {
      const steps = stepsOf(doc);
      expect(read?.resource_changes.map((c) => c.address)).toEqual(steps.map((s) => s.address));
      for (const [i, c] of (read?.resource_changes ?? []).entries()) {
        const s = steps[i];
        expect(c).toMatchObject({
          module_address: `module.${s?.target.target}`,
          mode: 'managed',
          type: s?.step.kind,
          name: s?.step.name,
          provider_name: `obsync/${s?.target.variant}`,
          actions: [s?.action],
          verb: s?.action,
          has_after_unknown: true, // a no-op too: its form is known (before = after), as Terraform's
        });
      }
    }
    expect(new Set(changed.targets.map((t) => t.variant))).toEqual(new Set(['self-hosted', 'hosted']));
  });

  it("sees updates, deletes with Terraform's reason, renames, adoptions and drift where obsync plans them", async () => {
    const [create, change] = await readPlans('create.json', 'change.json');
    const by = (read: ReadPlan | undefined, address: string) => read?.resource_changes.find((c) => c.address === address);
    for (const target of ['staging', 'production'])
      expect(by(change, `module.${target}.Alert.storefront-p99-high`)?.verb, target).toBe('update');
    expect(by(change, 'module.staging.Dashboard.storefront-canary')).toMatchObject({
      verb: 'delete',
      action_reason: 'delete_because_no_resource_config',
    });
    expect(by(change, 'module.production.Alert.storefront-errors')?.previous_address).toBe('module.production.Alert.storefront-error-logs');
    expect(change?.resource_drift.map((c) => [c.address, c.verb])).toEqual([['module.production.Dashboard.storefront', 'update']]);
    expect(by(change, 'module.production.Dashboard.storefront')?.verb).toBe('update');
    const adopted = created.targets.flatMap((t) =>
      t.steps.filter((s) => s.adopt === true).map((s) => [`module.${t.target}.${s.kind}.${s.name}`, s.id]),
    );
    expect(adopted.length).toBeGreaterThan(0);
    for (const [address, id] of adopted) expect(by(create, address ?? '')?.importing_id, address).toBe(id);
  });

  it(
    'loads planned_values, prior_state and configuration, each ' + 'object with the values of its change (none left out, none added)',
    async () => {
      const reads = await readPlans('create.json', 'change.json');
      for (const [read, doc] of [
        [reads[0], created],
        [reads[1], changed],
      ] as const) {
        if (!read) throw new Error('no plan read');
        const sections = { planned: read.planned_values, prior: read.prior_state, configuration: read.configuration };
        for (const [name, resources] of Object.entries(sections)) {
          // Where an object is: planned after the apply unless deleted; prior if it exists now; declared unless pruned.
          const expected = read.resource_changes.filter((c) =>
            name === 'planned' ? c.verb !== 'delete' : name === 'prior' ? c.verb !== 'create' : c.verb !== 'delete',
          );
          expect(resources.map((r) => r.address).sort(), `${read.file} ${name}`).toEqual(expected.map((c) => c.address).sort());
          for (const c of expected) {
            const r = resources.find((x) => x.address === c.address);
            expect(r, `${read.file} ${name} ${c.address}`).toMatchObject({
              module: c.module_address,
              mode: 'managed',
              type: c.type,
              name: c.name,
              provider: name === 'configuration' ? 'obsync' : c.provider_name,
            });
            // An unchanged object shows its values too (before = after, as Terraform's no-op).
            expect(r?.values, `${read.file} ${name} ${c.address}`).toEqual(name === 'prior' ? c.before : c.after);
            expect(r?.values).not.toBeNull();
          }
        }
        expect(read.prior_state_format_version).toBe('0.1');
        expect(read).toMatchObject({ complete: true, errored: false, applyable: doc.applyable, timestamp: doc.generated_at });
        expect(read.resource_changes.filter((c) => c.verb === 'no-op').every((c) => c.has_before)).toBe(true);
      }
    },
  );

  it('accepts the format version under both releases, and refuses what obsync 3.x wrote', async () => {
    const version = created.format_version.split('.').map(Number);
    const cmp = (a: readonly number[], b: readonly number[]) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0);
    expect(cmp(version, CURRENT_CONSTRAINT.atLeast)).toBeGreaterThanOrEqual(0);
    expect(cmp(version, CURRENT_CONSTRAINT.below)).toBeLessThan(0);
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ ...created, format_version: '3.1' }));
    const res = await run(reader, ['old.json']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('unsupported plan format version');
  });
});

describe.skipIf(missing !== null)('jq idioms of Terraform CI guides', () => {
  const count = (doc: PlanDocument, action: string) => stepsOf(doc).filter((s) => s.action === action).length;

  it('count the deletes a gate refuses, and the creates and updates', () => {
    const deletes = '[.resource_changes[] | select(.change.actions | index("delete"))] | length';
    expect(Number(jq(deletes, 'change.json'))).toBe(count(changed, 'delete'));
    expect(count(changed, 'delete')).toBeGreaterThan(0);
    expect(Number(jq(deletes, 'create.json'))).toBe(0);
    const creates = '.resource_changes | map(select(.change.actions | contains(["create"]))) | length';
    expect(Number(jq(creates, 'create.json'))).toBe(count(created, 'create'));
    expect(Number(jq('[.resource_changes[] | select(.change.actions == ["update"])] | length', 'change.json'))).toBe(
      count(changed, 'update'),
    );
  });

  it('fail a CI step on a destroy (jq -e) and pass it otherwise', () => {
    const gate = (file: string) => {
      try {
        execFileSync('jq', ['-e', '[.resource_changes[].change.actions[] | select(. == "delete")] | length == 0', file], { cwd: dir });
        return 0;
      } catch (err) {
        return (err as { status: number }).status;
      }
    };
    expect(gate('create.json')).toBe(0);
    expect(gate('change.json')).toBe(1);
  });

  it('list what changes by address, per module, per type, with drift and imports apart', () => {
    const changes = jq(
      '.resource_changes[] | select(.change.actions != ["no-op"]) | "\\(.change.actions | join(",")) \\(.address)"',
      'change.json',
      '-r',
    );
    expect(changes.split('\n')).toEqual(
      stepsOf(changed)
        .filter((s) => s.action !== 'no-op')
        .map((s) => `${s.action} ${s.address}`),
    );
    for (const t of changed.targets)
      expect(Number(jq(`[.resource_changes[] | select(.module_address == "${t.module_address}")] | length`, 'change.json'))).toBe(
        t.steps.length,
      );
    expect(
      jq(
        '[.resource_changes[] | select(.type == "Alert" and .change.actions == ["update"]) | .change.after.interval] | unique | .[]',
        'change.json',
        '-r',
      ),
    ).toBe('1m');
    expect(jq('.resource_drift[].address', 'change.json', '-r')).toBe('module.production.Dashboard.storefront');
    expect(Number(jq('[.resource_changes[] | select(.change.importing != null)] | length', 'create.json'))).toBe(
      created.targets.flatMap((t) => t.steps).filter((s) => s.adopt === true).length,
    );
  });
});

describe('the same document, saved', () => {
  it('is applied by obsync, and the next plan has nothing to do', async () => {
    await cli('apply', 'change.json');
    const res = await runCli(['plan', '--prune', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });
});
