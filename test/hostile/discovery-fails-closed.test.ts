/**
 * Issue 24 item 7: a broken manifest link (only warned) and a FIFO named `*.yaml` (silently
 * skipped) let prune delete what that manifest declared. Any manifest entry that cannot be read —
 * a broken link, a FIFO, socket or device, a file or folder without permission — is an error that
 * blocks apply and prune, as an invalid file does.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { assertBuilt, CLI, runCli } from '../support/cli.js';

let dir: string;
let servers: Server[] = [];

const dashboard = (name: string) =>
  `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec:\n  name: ${name}\n  tiles: []\n`;
const m = (...parts: string[]) => join(dir, 'm', ...parts);
const errors = () =>
  loadManifests([m()], { env: {} })
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => [d.code, d.file]);

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-discovery-'));
  mkdirSync(m());
  writeFileSync(m('a.yaml'), dashboard('alpha'));
});
afterEach(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  servers = [];
  rmSync(dir, { recursive: true, force: true });
});

describe('an entry that cannot be read is an error', () => {
  it.each([
    ['a link to a missing .yaml', () => symlinkSync('gone.yaml', m('b.yaml')), 'broken-link', 'b.yaml'],
    ['a link named .yml to a missing file', () => symlinkSync('../elsewhere/b', m('b.yml')), 'broken-link', 'b.yml'],
    ['a link without an extension (a folder, maybe) to nothing', () => symlinkSync('..2024_gone', m('team')), 'broken-link', 'team'],
    ['a link of another name to a missing manifest', () => symlinkSync('gone/b.yaml', m('current')), 'broken-link', 'current'],
    ['a link loop named .yaml', () => symlinkSync('b.yaml', m('b.yaml')), 'broken-link', 'b.yaml'],
    ['a FIFO named .yaml', () => execFileSync('mkfifo', [m('b.yaml')]), 'not-regular', 'b.yaml'],
    ['a link to a device named .yaml', () => symlinkSync('/dev/zero', m('b.yaml')), 'not-regular', 'b.yaml'],
  ])('%s', (_what, make, code, name) => {
    make();
    expect(errors()).toEqual([[code, m(name)]]);
  });

  it('a socket named .yaml', async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((r) => server.listen(m('b.yaml'), r));
    expect(errors()).toEqual([['not-regular', m('b.yaml')]]);
  });

  it('a path given that is a FIFO', () => {
    execFileSync('mkfifo', [m('b.yaml')]);
    const { diagnostics } = loadManifests([m('b.yaml')], { env: {} });
    expect(diagnostics.map((d) => [d.severity, d.code])).toEqual([['error', 'not-regular']]);
  });

  it('what says it is no manifest is only skipped: a broken README.md link is a warning, a FIFO named notes.txt nothing', () => {
    symlinkSync('../README.md', m('README.md'));
    execFileSync('mkfifo', [m('notes.txt')]);
    const { diagnostics, resources } = loadManifests([m()], { env: {} });
    expect(diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([['warning', 'broken-link', m('README.md')]]);
    expect(resources.map((r) => r.address)).toEqual(['Dashboard/alpha']);
  });

  it('says what is wrong and that nothing is applied or pruned until it is fixed', () => {
    symlinkSync('..data/b.yaml', m('b.yaml'));
    execFileSync('mkfifo', [m('c.yaml')]);
    expect(loadManifests([m()], { env: {} }).diagnostics.map((d) => d.message)).toEqual([
      `cannot read ${m('b.yaml')}: a symbolic link to ..data/b.yaml, which does not exist; fix or remove the link — nothing is applied ` +
        `or pruned until it can be read`,
      `cannot read ${m('c.yaml')}: it is a FIFO, not a regular file; nothing is applied or pruned until it can be read`,
    ]);
  });
});

/** As root, the test runs obsync as nobody, who must be able to reach the built CLI and node (not so in a clone under /root). */
function nobodyCannotRunObsync(): string | null {
  if (process.getuid?.() !== 0) return null;
  for (const file of [CLI, process.execPath]) {
    const parts = file.split('/').slice(1);
    for (let i = 1; i <= parts.length; i += 1) {
      const path = `/${parts.slice(0, i).join('/')}`;
      const mode = statSync(path).mode;
      if ((mode & (i === parts.length ? 0o004 : 0o001)) === 0) return `${path} is closed to other users`;
    }
  }
  return null;
}

/** `obsync validate m` as a user without permission where the test takes it away (root reads everything: run as nobody). */
function validateAsUser(): Promise<{ code: number; stdout: string }> {
  const asRoot = process.getuid?.() === 0;
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, 'validate', 'm'],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' }, timeout: 60_000, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) },
      (err, stdout) => done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout }),
    );
  });
}

const cannotDropPermissions = nobodyCannotRunObsync();

describe.skipIf(cannotDropPermissions !== null)(
  `without permission${cannotDropPermissions ? ` (skipped: ${cannotDropPermissions})` : ''}`,
  () => {
    beforeEach(() => chmodSync(dir, 0o755));

    it('a manifest that cannot be read is an error', async () => {
      chmodSync(m(), 0o755);
      writeFileSync(m('b.yaml'), dashboard('beta'));
      chmodSync(m('b.yaml'), 0o000);
      const res = await validateAsUser();
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/m\/b\.yaml:1:1: error: cannot read .*b\.yaml: .*(EACCES|permission denied)/);
    });

    it('a folder that cannot be listed is an error', async () => {
      chmodSync(m(), 0o755);
      mkdirSync(m('team'));
      writeFileSync(m('team/b.yaml'), dashboard('beta'));
      chmodSync(m('team'), 0o000);
      const res = await validateAsUser();
      expect(res.code).toBe(1);
      // Named as the project names it (issue 52.4).
      expect(res.stdout).toContain('error: cannot read the folder m/team: EACCES; nothing is applied or pruned until it can be read');
    });
  },
);

describe('prune keeps what an unreadable manifest declared', () => {
  it.each([
    ['a broken link', (file: string) => symlinkSync('..data/b.yaml', file)],
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file])],
  ])('b.yaml replaced by %s: apply --prune refuses, deletes nothing', async (_what, breakIt) => {
    writeFileSync(m('b.yaml'), dashboard('beta'));
    const applied = await runCli(['apply', 'm', '--auto-approve'], { cwd: dir });
    expect(applied.stdout).toContain('2 created');
    rmSync(m('b.yaml'));
    breakIt(m('b.yaml'));
    const res = await runCli(['apply', 'm', '--prune', '--auto-approve'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stdout + res.stderr).toContain('cannot read m/b.yaml');
    expect(res.stdout + res.stderr).not.toMatch(/deleted|destroy/i);
    // Once readable again, nothing is missing: the dashboard was never deleted.
    rmSync(m('b.yaml'));
    writeFileSync(m('b.yaml'), dashboard('beta'));
    const plan = await runCli(['plan', 'm', '--prune'], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });
});
