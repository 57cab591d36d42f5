/**
 * Issue 53, items 5 and 7: the files obsync writes into a project. `export --force` under a 4 KiB
 * file-size limit left a truncated manifest that still validated (and an error naming no file);
 * `init` appended to a `.gitignore` that was a symbolic link out of the project. Every such write
 * goes through one helper (src/manifests/atomic-write.ts): whole or not at all, never through a link.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, CLI } from '../support/cli.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';

let dir: string;

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-written-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every file below `root` (relative path → bytes). */
function tree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true }))
    if (e.isFile()) out.set(relative(root, join(e.parentPath, e.name)), readFileSync(join(e.parentPath, e.name), 'latin1'));
  return out;
}

/** The built CLI under a file-size limit of `kib` KiB (RLIMIT_FSIZE: a write past it fails with EFBIG). */
function runLimited(kib: number, args: string[]): Promise<{ code: number; stderr: string }> {
  const script = `ulimit -f ${kib} && exec "$0" "$@"`;
  return new Promise((done) =>
    execFile(
      'sh',
      ['-c', script, process.execPath, CLI, ...args],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } },
      (err, _out, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr }),
    ),
  );
}

async function init(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const f = fakeIO(dir);
  const code = await runInProcess(f.io, ['init', ...args]);
  return { code, out: f.out(), err: f.err() };
}

describe('export --force under a 4 KiB file-size limit (the red team replay)', () => {
  it('leaves every old file whole, names the file it could not write, and leaves no temporary file', async () => {
    // What an earlier export and the user's edits left: a manifest the next export rewrites, and the schema (over 4 KiB when written).
    mkdirSync(join(dir, 'manifests/source'), { recursive: true });
    writeFileSync(join(dir, 'manifests/source/logs.yaml'), "# the user's version\napiVersion: obsync/v1\n");
    writeFileSync(join(dir, 'manifests/obsync.schema.json'), '{}\n');
    const before = tree(join(dir, 'manifests'));
    const res = await runLimited(4, ['export', '--out-dir', 'manifests', '--force']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      `error: cannot write ${join(dir, 'manifests/obsync.schema.json')}: the file is larger than the file-size limit allows (EFBIG)`,
    );
    expect(res.stderr).toMatch(/none of the \d+ files was changed/);
    expect(tree(join(dir, 'manifests'))).toEqual(before);
  });
});

describe('init and a .gitignore that is a symbolic link', () => {
  it('refuses one that leads out of the project, naming the link and where it points; nothing is created', async () => {
    mkdirSync(join(dir, 'project'));
    writeFileSync(join(dir, 'elsewhere'), 'node_modules/\n');
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'project/.gitignore'));
    const res = await init(['project']);
    expect(res.code).toBe(1);
    expect(res.err).toContain(
      `error: ${join('project', '.gitignore')} is a symbolic link to ${join(dir, 'elsewhere')}, which is outside the project ` +
        `${join(dir, 'project')}: init does not write through it; nothing was created`,
    );
    expect(readFileSync(join(dir, 'elsewhere'), 'utf8')).toBe('node_modules/\n');
    expect(readdirSync(join(dir, 'project'))).toEqual(['.gitignore']);
  });

  it('refuses a dangling one, naming it', async () => {
    mkdirSync(join(dir, 'project'));
    symlinkSync('../gone', join(dir, 'project/.gitignore'));
    const res = await init(['project']);
    expect(res.code).toBe(1);
    expect(res.err).toContain(`${join('project', '.gitignore')} is a symbolic link to ../gone, which cannot be followed`);
    expect(readdirSync(join(dir, 'project'))).toEqual(['.gitignore']);
  });

  it('adds its lines to the file one inside the project leads to, and keeps the link', async () => {
    mkdirSync(join(dir, 'project/shared'), { recursive: true });
    writeFileSync(join(dir, 'project/shared/ignore'), 'dist/\n');
    symlinkSync('shared/ignore', join(dir, 'project/.gitignore'));
    const res = await init(['project']);
    expect(res.code, res.err).toBe(0);
    expect(readFileSync(join(dir, 'project/shared/ignore'), 'utf8')).toMatch(/^dist\/\n\n# .*\n\.obsync\/\n# .*\n\.env\n$/);
    expect(readdirSync(join(dir, 'project')).sort()).toEqual(['.gitignore', 'manifests', 'obsync.schema.json', 'obsync.yaml', 'shared']);
  });

  it('refuses a manifests folder that links out of the project: nothing is created', async () => {
    mkdirSync(join(dir, 'project'));
    mkdirSync(join(dir, 'outside'));
    symlinkSync(join(dir, 'outside'), join(dir, 'project/manifests'));
    const res = await init(['project']);
    expect(res.code).toBe(1);
    expect(res.err).toContain(`cannot write ${join(dir, 'project/manifests/example.yaml')}: `);
    expect(res.err).toContain('none of the 3 files was changed');
    expect(readdirSync(join(dir, 'outside'))).toEqual([]);
    expect(readdirSync(join(dir, 'project'))).toEqual(['manifests']);
  });
});
