/**
 * Issue 24 item 6 (files): every file obsync reads goes through one bounded reader — regular files
 * only, size-capped, never blocked by a FIFO. `OBSYNC_STATE_URL_FILE=/dev/zero` grew memory by
 * gigabytes and a FIFO blocked forever; so did a saved plan, the inventory, the fingerprint key and
 * the sandbox's data. Each reader is attacked with a FIFO, a device and (where the cap is 1 MiB) a
 * file past the cap, and must end with an error naming the file.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readFileBackups } from '../../src/inventory/file-backups.js';
import { assertBuilt, runCli } from '../support/cli.js';

let dir: string;

/** What a hostile file is made of: created at `path`. */
const HOSTILE = {
  fifo: (path: string) => execFileSync('mkfifo', [path]),
  device: (path: string) => symlinkSync('/dev/zero', path),
  /** 2 MiB, sparse: past the 1 MiB cap of the files a user names. */
  oversize: (path: string) => {
    writeFileSync(path, '');
    truncateSync(path, 2 * 1024 * 1024);
  },
} as const;
type Hostile = keyof typeof HOSTILE;

const SAYS: Record<Hostile, RegExp> = {
  fifo: /is not a regular file \(a FIFO\)/,
  device: /is not a regular file \(a device\)/,
  oversize: /is larger than 1 MiB/,
};

const state = (...parts: string[]) => join(dir, '.obsync/state', ...parts);

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-bounds-files-'));
  cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A first plan on the embedded sandbox, so the state and sandbox directories exist. */
async function firstRun(): Promise<void> {
  const res = await runCli(['apply', 'manifests', '--auto-approve'], { cwd: dir });
  expect(res.code, res.stderr).toBe(0);
}

describe('files a user names (1 MiB at most)', () => {
  const cases: [string, Hostile[], (file: string) => { args: string[]; env: Record<string, string> }][] = [
    [
      'OBSYNC_STATE_URL_FILE',
      ['fifo', 'device', 'oversize'],
      (file) => ({
        args: ['plan', 'manifests'],
        env: { OBSYNC_BASE_URL: 'http://127.0.0.1:1', OBSYNC_API_KEY: 'not-used-key', OBSYNC_STATE_URL_FILE: file },
      }),
    ],
    [
      'OBSYNC_API_KEY_FILE',
      ['fifo', 'device', 'oversize'],
      (file) => ({ args: ['plan', 'manifests'], env: { OBSYNC_BASE_URL: 'http://127.0.0.1:1', OBSYNC_API_KEY_FILE: file } }),
    ],
    [
      'OBSYNC_KEY_ID_FILE',
      ['fifo', 'device'],
      (file) => ({
        args: ['plan', 'manifests'],
        env: {
          OBSYNC_BASE_URL: 'http://127.0.0.1:1',
          OBSYNC_KEY_ID_FILE: file,
          OBSYNC_KEY_SECRET: 'not-used-secret',
          OBSYNC_ORG_ID: '11111111-1111-4111-8111-111111111111',
          OBSYNC_SERVICE_ID: '22222222-2222-4222-8222-222222222222',
        },
      }),
    ],
    ['obsync.yaml (--config)', ['fifo', 'device', 'oversize'], (file) => ({ args: ['validate', '--config', file], env: {} })],
  ];
  for (const [reader, kinds, command] of cases) {
    it.each(kinds)(`${reader} as a %s: an error naming it, at once`, async (kind) => {
      const file = join(dir, 'hostile');
      HOSTILE[kind](file);
      const { args, env } = command(file);
      const res = await runCli(args, { cwd: dir, env });
      expect(res.code).toBe(1);
      expect(res.stderr + res.stdout).toMatch(SAYS[kind]);
      // validate names a file of the project as the project does (issue 52: relative paths in every output).
      expect(res.stderr + res.stdout).toContain(args[0] === 'validate' ? 'cannot read config hostile:' : join(dir, 'hostile'));
    });
  }
  it.each(['fifo', 'device', 'oversize'] as const)(
    'init beside a .gitignore that is a %s: an error naming it, nothing created',
    async (kind) => {
      const project = join(dir, 'project');
      mkdirSync(project);
      HOSTILE[kind](join(project, '.gitignore'));
      const res = await runCli(['init', 'project'], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(new RegExp(SAYS[kind].source.replace(/^is /, 'it is ')));
      expect(res.stderr).toContain(join('project', '.gitignore'));
      expect(existsSync(join(project, 'obsync.yaml'))).toBe(false);
    },
  );
});

describe("obsync's own files (state, plans, sandbox data)", () => {
  it.each(['fifo', 'device'] as const)('a saved plan that is a %s: refused, not waited on', async (kind) => {
    HOSTILE[kind](join(dir, 'plan.json'));
    const res = await runCli(['apply', 'plan.json'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(new RegExp(`^error: cannot read the saved plan plan\\.json: it ${SAYS[kind].source.replace('is ', 'is ')}`));
  });

  it.each([
    ['the inventory snapshot', 'sandbox.json'],
    ['the inventory journal', 'sandbox.journal'],
    ['the fingerprint key', 'fingerprint.key'],
  ])('%s as a FIFO or a device: an error naming it, nothing applied', async (_what, name) => {
    await firstRun();
    for (const kind of ['fifo', 'device'] as const) {
      rmSync(state(name), { force: true });
      HOSTILE[kind](state(name));
      const res = await runCli(['apply', 'manifests', '--auto-approve'], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(state(name));
      expect(res.stderr).toMatch(SAYS[kind]);
      expect(res.stdout).not.toMatch(/created|updated|deleted/);
    }
  });

  it('the writer lock as a FIFO: read as a damaged lock (held until its lease expires), never waited on', async () => {
    await firstRun();
    HOSTILE.fifo(state('sandbox.lock'));
    const res = await runCli(['apply', 'manifests', '--auto-approve'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/is locked by another obsync \(unreadable lock file/);
  });

  it("the embedded sandbox's data as a FIFO: an error naming it", async () => {
    await firstRun();
    const data = state('embedded/sandbox/keys.json');
    rmSync(data);
    HOSTILE.fifo(data);
    const res = await runCli(['plan', 'manifests'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`sandbox data file ${data} is unreadable: ${data} is not a regular file (a FIFO)`);
  });

  it('a backup that is a FIFO is passed over (state migrate reads them all)', async () => {
    const folder = join(dir, 'state/backups/2026-01-01T00-00-00Z/t');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'Dashboard-a.json'),
      JSON.stringify({ address: 'Dashboard/a', id: '1', backedUpAt: '2026-01-01T00:00:00Z', object: { id: '1' } }),
    );
    HOSTILE.fifo(join(folder, 'Dashboard-b.json'));
    const { backups, skipped } = await readFileBackups(join(dir, 'state'), 't');
    expect(backups.map((b) => b.address)).toEqual(['Dashboard/a']);
    expect(skipped.map((r) => r.key)).toEqual(['Dashboard-b.json']);
  });

  it('export over a FIFO with the name of a file it writes: a conflict, not a hang', async () => {
    await firstRun();
    const first = await runCli(['export', '--out-dir', 'out', '--kind', 'Dashboard'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const written =
      execFileSync('find', ['out', '-name', '*.yaml', '-type', 'f'], { cwd: dir, encoding: 'utf8' }).trim().split('\n')[0] ?? '';
    expect(written).not.toBe('');
    rmSync(join(dir, written));
    HOSTILE.fifo(join(dir, written));
    const again = await runCli(['export', '--out-dir', 'out', '--kind', 'Dashboard'], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exist with other content/);
  });
});
