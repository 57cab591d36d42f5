/**
 * npm's `prepare` (scripts/prepare.js) builds dist/ only when this package has the TypeScript
 * compiler installed itself. A production install (`npm ci --omit=dev`, the container's runtime
 * stage) skips the build; a node_modules with a compiler in a parent folder (a checkout or an
 * install under such a folder) is not this package's and must not make it try.
 * prepack and postpack (scripts/pack-manifest.js) pack a package.json without scripts and put the
 * full one back, also after an interrupted pack; a real pack and install is ./package-install.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'obsync-prepare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/prepare.js', () => {
  it('skips the build without a compiler of its own, even under a folder whose node_modules has one', () => {
    mkdirSync(join(dir, 'node_modules/typescript'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/typescript/package.json'), '{"name":"typescript","version":"0.0.0"}');
    const pkg = join(dir, 'obsync');
    mkdirSync(join(pkg, 'scripts'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"name":"obsync","type":"module","scripts":{}}');
    copyFileSync(join(ROOT, 'scripts/prepare.js'), join(pkg, 'scripts/prepare.js'));
    const run = spawnSync(process.execPath, ['scripts/prepare.js'], { cwd: pkg, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toContain('no TypeScript compiler (a production install): dist/ is not built here');
    expect(run.status).toBe(0);
  });

  it(
    'pack-manifest.js: strip leaves package.json without scripts, restore ' +
      'brings back every byte, even after a strip that was not restored',
    () => {
      const pkg = join(dir, 'packed');
      mkdirSync(join(pkg, 'scripts'), { recursive: true });
      copyFileSync(join(ROOT, 'scripts/pack-manifest.js'), join(pkg, 'scripts/pack-manifest.js'));
      const full = readFileSync(join(ROOT, 'package.json'), 'utf8');
      writeFileSync(join(pkg, 'package.json'), full);
      const step = (name: string) =>
        spawnSync(process.execPath, ['scripts/pack-manifest.js', name], { cwd: pkg, encoding: 'utf8', timeout: 60_000 });
      expect(step('strip').status).toBe(0);
      expect(step('strip').status).toBe(0);
      const packed = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(packed.scripts).toBeUndefined();
      const { scripts: _scripts, ...rest } = JSON.parse(full) as Record<string, unknown>;
      expect(packed).toEqual(rest);
      expect(step('restore').status).toBe(0);
      expect(readFileSync(join(pkg, 'package.json'), 'utf8')).toBe(full);
      expect(existsSync(join(pkg, '.package.json.full'))).toBe(false);
    },
  );
});
