/**
 * Issue 53, items 5 and 7: the files obsync writes into a project. `export --force` under a 4 KiB
 * file-size limit left a truncated manifest that still validated (and an error naming no file);
 * `init` appended to a `.gitignore` that was a symbolic link out of the project. Every such write
 * goes through one helper (src/manifests/atomic-write.ts): whole or not at all, never through a link.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, CLI } from '../support/cli.js';

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
