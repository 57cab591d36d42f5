/**
 * Issue 49 item 4: PipeSshKey end to end on the hosted sandbox, in process. Apply creates a key
 * (the service makes the pair; nothing obsync writes holds a private key), the next plan is
 * empty, a key made by hand is adopted by name, a changed fixed field is planned with its note
 * and never sent, an export planned in a fresh project finds no change, prune deletes only
 * what obsync owns, and a Pipe manifest with workload identity patches a gcmk pipe.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';

let sandbox: SandboxHandle;
const dirs: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', pipeTransitionMs: 10 });
});
afterAll(async () => {
  await sandbox.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const key = (name: string, extra = '') =>
  `apiVersion: obsync/v1\nkind: PipeSshKey\nmetadata: {name: ${name}}\nspec:\n  name: ${name}\n  host: bastion.example.com\n` +
  `  username: clickpipes\n${extra}`;

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-sshkeys-'));
  dirs.push(dir);
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\nstate: {backend: file, path: .obsync/state}\ntargets:\n` +
      `  - {name: t, variant: hosted, baseUrl: ${sandbox.url}, organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, ` +
      `credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}, rateLimit: {requests: 1000, perSeconds: 1}}\n`,
  );
  mkdirSync(join(dir, 'manifests'));
  const write = (text: string) => writeFileSync(join(dir, 'manifests', 'keys.yaml'), text);
  return { dir, write, cli: (...args: string[]) => runCli(args, { cwd: dir }) };
}

async function cloud(method: string, path: string, body?: unknown): Promise<{ status: number; result: unknown }> {
  const c = sandbox.credentials;
  const res = await fetch(`${sandbox.url}/v1/organizations/${c.organizationId}/services/${c.serviceId}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${c.keyId}:${c.keySecret}`).toString('base64')}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, result: ((await res.json()) as { result?: unknown }).result };
}

const keysByName = async () =>
  new Map(
    ((await cloud('GET', '/clickpipesSshKeyResources')).result as { name: string; id: string; port: number }[]).map((k) => [k.name, k]),
  );

/** Every file under a directory, as text (state, backups, exports). */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('PipeSshKey on the hosted sandbox', () => {
  it('creates, adopts, notes a fixed field, exports with no change, and prunes only what it owns', async () => {
    const { dir, write, cli } = project();
    const byHand = await cloud('POST', '/clickpipesSshKeyResources', {
      name: 'legacy',
      host: 'bastion.example.com',
      port: 22,
      username: 'clickpipes',
    });
    expect(byHand.status).toBe(200);
    await cloud('POST', '/clickpipesSshKeyResources', { name: 'unmanaged', host: 'h.example.com', port: 22, username: 'u' });
    write(`${key('prod-bastion', '  description: Bastion for the prod VPC\n')}---\n${key('legacy')}`);

    const applied = await cli('apply', '--auto-approve');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/PipeSshKey\/prod-bastion/);
    const live = await keysByName();
    expect(live.get('prod-bastion')).toMatchObject({ port: 22, status: 'pending', description: 'Bastion for the prod VPC' });
    expect(live.get('legacy')?.id).toBe((byHand.result as { id: string }).id);
    expect(allText(dir)).not.toMatch(/PRIVATE KEY|privateKey/);

    expect((await cli('plan', '--detailed-exitcode')).code).toBe(0);

    // A fixed field changed: planned with its note; the apply sends nothing and says it does not converge.
    write(`${key('prod-bastion', '  description: Bastion for the prod VPC\n  port: 2222\n')}---\n${key('legacy')}`);
    const changed = await cli('plan', '--detailed-exitcode');
    expect(changed.code).toBe(2);
    expect(changed.stdout).toMatch(/cannot change in place/);
    expect(changed.stdout).toMatch(/status: pending/);
    await cli('apply', '--auto-approve');
    expect((await keysByName()).get('prod-bastion')?.port).toBe(22);

    // Export, adopted in a fresh project, plans to no change; the notes carry the public key.
    const exported = project();
    const out = await exported.cli('export', '--kind', 'PipeSshKey', '--adopt', '--out-dir', 'manifests');
    expect(out.code, out.stderr).toBe(0);
    expect(allText(join(exported.dir, 'manifests'))).toMatch(/ssh-ed25519 /);
    const replan = await exported.cli('plan', '--detailed-exitcode');
    expect(replan.code, replan.stdout).toBe(0);

    // Prune: the dropped key obsync owns goes; the one it never owned stays.
    write(key('legacy'));
    const pruned = await cli('apply', '--auto-approve', '--prune');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect([...(await keysByName()).keys()].sort()).toEqual(['legacy', 'unmanaged']);
  });

  it('a Pipe manifest switches a gcmk Kafka pipe to workload identity, with no credentials', async () => {
    const { write, cli } = project();
    const created = await cloud('POST', '/clickpipes', {
      name: 'gcmk-events',
      source: {
        kafka: {
          type: 'gcmk',
          format: 'JSONEachRow',
          brokers: 'b:9092',
          topics: 't',
          authentication: 'PLAIN',
          credentials: { username: 'u', password: 'p' },
        },
      },
      destination: { database: 'default', table: 't', managedTable: false },
    });
    expect(created.status).toBe(200);
    write(
      'apiVersion: obsync/v1\nkind: Pipe\nmetadata: {name: gcmk}\nspec:\n  name: gcmk-events\n' +
        '  source:\n    kafka: {authentication: SERVICE_ACCOUNT_WORKLOAD_IDENTITY}\n',
    );
    const plan = await cli('plan');
    expect(plan.stdout).toMatch(/GCP principal/);
    expect((await cli('apply', '--auto-approve')).code).toBe(0);
    const pipe = (await cloud('GET', `/clickpipes/${(created.result as { id: string }).id}`)).result as {
      source: { kafka: Record<string, unknown> };
    };
    expect(pipe.source.kafka.authentication).toBe('SERVICE_ACCOUNT_WORKLOAD_IDENTITY');
    expect((await cli('plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('prune keeps back a key a pipe still names (the service would refuse the delete)', async () => {
    const { write, cli } = project();
    write(key('tunnel'));
    expect((await cli('apply', '--auto-approve')).code).toBe(0);
    const tunnel = (await keysByName()).get('tunnel');
    const pipe = await cloud('POST', '/clickpipes', {
      name: 'tunneled',
      source: {
        kafka: {
          type: 'msk',
          format: 'JSONEachRow',
          brokers: 'b:9092',
          topics: 't',
          authentication: 'IAM_ROLE',
          iamRole: 'arn:r',
          sshKeyResourceId: tunnel?.id,
        },
      },
      destination: { database: 'default', table: 't', managedTable: false },
    });
    expect(pipe.status).toBe(200);
    write('apiVersion: obsync/v1\nkind: Pipe\nmetadata: {name: tunneled}\nspec: {name: tunneled}\n');
    const pruned = await cli('apply', '--auto-approve', '--prune', '--allow-empty-kind', 'PipeSshKey');
    expect(pruned.stdout + pruned.stderr).toMatch(/PipeSshKey\/tunnel.*not deleted.*tunneled/s);
    expect((await keysByName()).has('tunnel')).toBe(true);
  });
});
