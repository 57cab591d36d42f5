/**
 * Issue 27 end to end, through the real CLI on both API variants and both state backends (a file
 * state directory, PostgreSQL): in one commit a dashboard, a tile alert and a tile key are renamed
 * (and the files moved). Declared in the manifests, the plan shows the moves and no create or
 * delete; `obsync state mv` records the same renames imperatively. Either way the dashboard,
 * tile and alert ids are unchanged after the apply and the next plan is empty. `state mv` refuses
 * an unknown source, an occupied destination and a kind change on both backends.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServicePort, Variant } from '../../src/core/ports.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, runCli, type CliResult } from '../support/cli.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { afterRefactor, beforeRefactor, DISPLAY, STATE_MOVES } from '../support/renames.js';
import { sandboxPort } from '../support/world.js';

type Backend = 'file' | 'postgres';

let pg: PgServer;
const outputs: CliResult[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  assertBuilt();
  pg = await startPostgres();
});
afterAll(async () => {
  for (const out of outputs) expect(out.stdout + out.stderr).not.toContain(pg.password);
  await pg.close();
});
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** A project on a fresh sandbox: obsync.yaml for the variant and backend, manifests written on demand. */
async function project(variant: Variant, backend: Backend) {
  const sandbox: SandboxHandle = await startSandbox({ port: 0, rateLimit: 'off' });
  const port: ServicePort = sandboxPort(sandbox, variant);
  const dir = mkdtempSync(join(tmpdir(), 'obsync-renames-'));
  cleanups.push(async () => {
    await port.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const c = sandbox.credentials;
  const target =
    variant === 'hosted'
      ? `variant: hosted\n    organizationId: ${c.organizationId}\n    serviceId: ${c.serviceId}\n    credentials: {keyId: ${c.keyId}, ` +
        `keySecret: ${c.keySecret}}`
      : `variant: self-hosted\n    credentials: {apiKey: ${c.apiKey}}`;
  const state =
    backend === 'file'
      ? '{backend: file, path: .obsync/state}'
      : `{backend: postgres, url: "\${env:OBSYNC_STATE_URL}", schema: ${pg.freshSchema('renames')}}`;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: ${state}\ntargets:\n  - name: prod\n    ${target}\n    baseUrl: ` +
      `${sandbox.url}\n    rateLimit: {requests: 1000, perSeconds: 1}\n`,
  );
  const manifests = (files: Record<string, string>) => {
    rmSync(join(dir, 'manifests'), { recursive: true, force: true });
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, 'manifests', name)), { recursive: true });
      writeFileSync(join(dir, 'manifests', name), text);
    }
  };
  const obsync = async (...args: string[]) => {
    // OBSYNC_STATE_URL would take precedence over a file state in obsync.yaml: set only for PostgreSQL.
    const res = await runCli(args, { cwd: dir, env: backend === 'postgres' ? { OBSYNC_STATE_URL: pg.url } : {} });
    outputs.push(res);
    return res;
  };
  /** The dashboard, its tile ids by title, and the alerts' ids with the tile each hangs on, as the service has them. */
  const live = async () => {
    const dashboards = await collectionOf(port, 'Dashboard').list();
    const alerts = await collectionOf(port, 'Alert').list();
    return {
      dashboards: dashboards.map((d) => ({ id: d.id, name: d.name, tiles: d.tiles.map((t) => t.id) })),
      alerts: alerts.map((a) => ({ id: a.id, dashboardId: a.dashboardId, tileId: a.tileId })).sort((a, b) => (a.id < b.id ? -1 : 1)),
    };
  };
  return { dir, obsync, manifests, live };
}

interface ResourceChange {
  address: string;
  obsync_address: string;
  change: { actions: string[] };
  previous_address?: string;
  moved_parts?: { from: string; to: string }[];
}

function resourceChanges(file: string): ResourceChange[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { resource_changes: ResourceChange[] };
  return doc.resource_changes;
}

const actions = (changes: readonly ResourceChange[]) => changes.map((c) => `${c.change.actions.join('+')} ${c.obsync_address}`).sort();

const COMBINATIONS = [
  ['self-hosted', 'file'],
  ['self-hosted', 'postgres'],
  ['hosted', 'file'],
  ['hosted', 'postgres'],
] as const;

describe.each(COMBINATIONS)('renames end to end (%s, %s state)', (variant, backend) => {
  it('declared renames: the plan shows the moves and no create or delete, the ids stay, the next plan is empty', async () => {
    const p = await project(variant, backend);
    p.manifests(beforeRefactor());
    const first = await p.obsync('apply', '--auto-approve');
    expect(first.code, first.stderr).toBe(0);
    const before = await p.live();
    expect(before.dashboards.filter((d) => d.name === DISPLAY)).toHaveLength(1);

    p.manifests(afterRefactor(true));
    // One plan, reviewed three ways: the text on stdout, the exit code, the JSON saved for the apply.
    const text = await p.obsync('plan', '--prune', '--detailed-exitcode', '--out', 'plan.json');
    expect(text.code, text.stderr).toBe(2);
    expect(text.stdout).toContain('      moved: Dashboard/checkout → Dashboard/checkout-service\n      moved: tile p99 → latency\n');
    expect(text.stdout).toContain('  > Alert/checkout-latency-high  (moved, id');
    expect(text.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete, 1 to move, 1 unchanged.');
    const changes = resourceChanges(join(p.dir, 'plan.json'));
    expect(actions(changes)).toEqual([
      'no-op Alert/checkout-errors',
      'no-op Alert/checkout-latency-high',
      'update Dashboard/checkout-service',
    ]);
    expect(changes.find((c) => c.obsync_address === 'Dashboard/checkout-service')).toMatchObject({
      address: 'module.prod.Dashboard.checkout-service',
      previous_address: 'module.prod.Dashboard.checkout',
      moved_parts: [{ from: 'p99', to: 'latency' }],
    });
    expect(changes.find((c) => c.obsync_address === 'Alert/checkout-latency-high')?.previous_address).toBe(
      'module.prod.Alert.checkout-p99',
    );

    // Applied as the saved plan that was reviewed.
    const apply = await p.obsync('apply', 'plan.json');
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toMatch(/Dashboard\/checkout-service: updated \(moved from Dashboard\/checkout, p99 → latency\) \[id=\w+\]/);
    expect(apply.stderr).toMatch(/Alert\/checkout-latency-high: moved from Alert\/checkout-p99 \[id=\w+\]/);
    expect(apply.stdout).toMatch(/Apply complete: 0 created, 1 updated, 0 deleted, 1 moved, 0 failed/);

    expect(await p.live()).toEqual({ ...before, dashboards: before.dashboards.map((d) => ({ ...d })) });
    const owned = JSON.parse((await p.obsync('state', 'list', '--output', 'json')).stdout) as { kind: string; name: string; id: string }[];
    expect(owned.map((o) => `${o.kind}/${o.name}`).sort()).toEqual([
      'Alert/checkout-errors',
      'Alert/checkout-latency-high',
      'Dashboard/checkout-service',
    ]);
    const next = await p.obsync('plan', '--prune', '--detailed-exitcode');
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(next.stdout).toMatch(/No changes\./);
    expect(next.stdout).toMatch(/metadata\.previousNames \(checkout\) has nothing left to move on this target/);
  });

  it('the same renames recorded with obsync state mv: no create or delete, the ids stay, the next plan is empty', async () => {
    const p = await project(variant, backend);
    p.manifests(beforeRefactor());
    expect((await p.obsync('apply', '--auto-approve')).code).toBe(0);
    const before = await p.live();

    p.manifests(afterRefactor(false));
    for (const [from, to] of STATE_MOVES) {
      const mv = await p.obsync('state', 'mv', from, to);
      expect(mv.code, mv.stderr).toBe(0);
      expect(mv.stdout).toMatch(/^Moved /);
    }
    const planned = await p.obsync('plan', '--prune', '--out', 'plan.json');
    expect(planned.code, planned.stderr).toBe(0);
    const changes = resourceChanges(join(p.dir, 'plan.json'));
    expect(actions(changes)).toEqual([
      'no-op Alert/checkout-errors',
      'no-op Alert/checkout-latency-high',
      'update Dashboard/checkout-service',
    ]);
    expect(changes.some((c) => c.previous_address !== undefined || c.moved_parts !== undefined)).toBe(false);
    const apply = await p.obsync('apply', '--auto-approve', '--prune');
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/Apply complete: 0 created, 1 updated, 0 deleted, 0 failed/);
    expect(await p.live()).toEqual(before);
    const next = await p.obsync('plan', '--prune', '--detailed-exitcode');
    expect(next.code, next.stdout + next.stderr).toBe(0);
  });
});

describe.each(['file', 'postgres'] as const)('obsync state mv refusals (%s state)', (backend) => {
  it(
    'refuses an unknown source, an occupied destination, a kind ' + 'change and a tile moved to another dashboard; nothing changes',
    async () => {
      const p = await project('self-hosted', backend);
      p.manifests(beforeRefactor());
      expect((await p.obsync('apply', '--auto-approve')).code).toBe(0);
      const listed = async () => (await p.obsync('state', 'list', '--output', 'json')).stdout;
      const state = await listed();
      const refusals: [string[], RegExp][] = [
        [['Dashboard/nope', 'Dashboard/other'], /Dashboard\/nope is not in the state of target 'prod': nothing to move/],
        [
          ['Alert/checkout-p99', 'Alert/checkout-errors'],
          new RegExp(
            String.raw`Alert\/checkout-errors is already in the state of target 'prod' \(id \w+\): moving Alert\/checkout-p99 ` +
              String.raw`there would lose track of one of the two objects`,
          ),
        ],
        [['Dashboard/checkout', 'Alert/checkout'], /cannot move Dashboard\/checkout to Alert\/checkout: a rename keeps the kind/],
        [['Dashboard/checkout/tiles/p99', 'Dashboard/checkout/tiles/errors'], /already has a tile 'errors'/],
        [['Dashboard/checkout/tiles/nope', 'Dashboard/checkout/tiles/other'], /has no tile 'nope'/],
        [['Dashboard/checkout/tiles/p99', 'Dashboard/other/tiles/p99'], /a tile stays on its own object/],
        [['Dashboard/checkout', 'Dashboard/checkout/tiles/p99'], /move an object to an object, or a tile key to a tile key/],
        [['Dashboard/Checkout', 'Dashboard/x'], /'Checkout' is not a metadata\.name/],
      ];
      // The rules are one function for both backends (moveRefusal); PostgreSQL checks the three of the issue and a tile.
      for (const [args, message] of backend === 'file' ? refusals : refusals.slice(0, 4)) {
        const res = await p.obsync('state', 'mv', ...args);
        expect(res.code, `${args.join(' ')}: ${res.stdout}`).toBe(1);
        expect(res.stderr, args.join(' ')).toMatch(message);
        expect(res.stdout).toBe('');
      }
      expect(await listed()).toBe(state);
    },
  );
});
