/**
 * Issue 53, item 6, through the CLI (in-process, one sandbox): two targets whose base URLs are
 * spelled differently but name one service. `validate` warns; the second target's apply refuses
 * to adopt the first one's dashboard, naming it, and its prune leaves it; `import` refuses too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/defaults.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { sandboxPort } from '../support/world.js';

let dir: string;
let sandbox: SandboxHandle;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-one-service-'));
  sandbox = await startSandbox({ port: 0, rateLimit: 'off', seed: 'none' });
  const url = new URL(sandbox.url);
  const target = (name: string, baseUrl: string) =>
    `  - name: ${name}\n    variant: self-hosted\n    baseUrl: ${baseUrl}\n    credentials: {apiKey: "\${env:KEY}"}\n`;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n${target('first', sandbox.url)}` +
      target('second', `HTTP://LOCALHOST.:${url.port}/./`.replace('LOCALHOST', url.hostname)),
  );
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(
    join(dir, 'manifests', 'd.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: checkout}\nspec: {name: Checkout, tiles: []}\n',
  );
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

async function dashboardIds(): Promise<string[]> {
  const port = sandboxPort(sandbox, 'self-hosted');
  try {
    return (await collectionOf(port, 'Dashboard').list()).map((d) => d.id);
  } finally {
    await port.close();
  }
}

async function obsync(...args: string[]) {
  const f = fakeIO(dir, { env: { KEY: SANDBOX_DEFAULTS.apiKey } });
  const code = await runInProcess(f.io, args);
  return { code, out: f.out(), err: f.err() };
}

describe('two targets on one service', () => {
  it('validate warns; the second target adopts, imports and prunes nothing the first owns, naming it', async () => {
    const validate = await obsync('validate');
    expect(validate.code).toBe(0);
    expect(validate.out).toMatch(/warning.*targets 'first' and 'second' write to one service \(http:\/\/127\.0\.0\.1:\d+\)/);

    expect((await obsync('apply', '--target', 'first', '--auto-approve')).code).toBe(0);
    const [id = ''] = await dashboardIds();

    const second = await obsync('apply', '--target', 'second', '--auto-approve', '--prune');
    expect(second.code).toBe(1);
    expect(`${second.out}${second.err}`).toContain(
      `dashboard ${id} is owned by target 'first' (as Dashboard/checkout), which writes to the same service`,
    );
    const imported = await obsync('import', 'Dashboard/checkout', id, '--target', 'second');
    expect(imported.code).toBe(1);
    expect(imported.err).toContain(`dashboard ${id} is owned by target 'first'`);
    expect(await dashboardIds()).toEqual([id]);
  });
});
