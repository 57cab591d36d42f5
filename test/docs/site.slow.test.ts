/**
 * The docs site builds (VitePress, docs/.vitepress/config.mts) with no broken link: VitePress fails
 * the build on a link to a page that does not exist, and every page compiles as a Vue template
 * (a stray `<tag` or `{{` in prose fails it too).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { npmChildEnv } from '../deploy/npm-env.js';

const REPO = resolve(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'obsync-docs-site-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('builds, with every link resolving', () => {
  const vitepress = join(REPO, 'node_modules/vitepress/bin/vitepress.js');
  const build = spawnSync(process.execPath, [vitepress, 'build', 'docs', '--outDir', out], {
    cwd: REPO,
    encoding: 'utf8',
    env: npmChildEnv({ NO_COLOR: '1' }),
    timeout: 240_000,
  });
  expect(build.status, `${build.stdout}\n${build.stderr}`.slice(-4000)).toBe(0);
  expect(`${build.stdout}${build.stderr}`).not.toMatch(/dead link/i);
  for (const page of ['index.html', 'getting-started.html', 'reference/cli.html', 'errors.html', 'benchmarks.html'])
    expect(existsSync(join(out, page)), page).toBe(true);
}, 300_000);
