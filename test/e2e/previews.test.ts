/**
 * Issue 42: `obsync plan --preview-dir` against the sandbox (self-hosted), and the SVG it writes
 * opened in headless Chromium: the tiles where the 24-column grid puts them, the changed tile
 * outlined, a hostile dashboard name shown as text with no script run; a line tile drawn with the
 * sandbox's series. One sandbox, one browser.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { chromiumMissing, launchBrowser, type Browser } from '../support/browser.js';
import { assertBuilt, runCli } from '../support/cli.js';

const HOSTILE = '</text><script>window.pwned=1</script>';
const missing = chromiumMissing();
let sandbox: SandboxHandle;
let browser: Browser | undefined;
let dir: string;

function manifests(where: string, hostile = false): void {
  rmSync(join(dir, 'm'), { recursive: true, force: true });
  mkdirSync(join(dir, 'm'));
  const tile = (key: string, x: number, display: string, w: string) =>
    `{key: ${key}, name: ${key}, x: ${x}, y: 0, w: 12, h: 4, config: {displayType: ${display}, source: Logs, select: [{aggFn: count, ` +
    `where: '${w}'}]}}`;
  writeFileSync(
    join(dir, 'm/all.yaml'),
    `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: board}\nspec: {name: Board, tiles: [${tile('left', 0, 'line', 'a:b')}, ` +
      `${tile('right', 12, 'number', where)}]}\n---\n` +
      (hostile
        ? `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: hostile}\nspec: {name: ${JSON.stringify(HOSTILE)}, tiles: ` +
          `[${tile('t', 0, 'line', 'x')}]}\n`
        : ''),
  );
}

const cli = (...args: string[]) => runCli([...args, '--target', 'selfhosted'], { cwd: dir });

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-previews-'));
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\ntargets:\n  - {name: selfhosted, variant: self-hosted, baseUrl: ` +
      `${sandbox.url}, credentials: {apiKey: ${c.apiKey}}}\n`,
  );
  manifests('service:api');
  const applied = await cli('apply', '--auto-approve');
  expect(applied.code, applied.stderr).toBe(0);
  manifests('service:web', true);
  if (!missing) browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('plan --preview-dir', () => {
  it('writes an SVG and a PNG per changed dashboard under stable names, linked from the markdown plan', async () => {
    const md = await cli('plan', '--output', 'markdown', '--preview-dir', 'previews');
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('#### Previews');
    expect(md.stdout).toContain('[![Dashboard/board](previews/dashboard-board.png)](previews/dashboard-board.svg)');
    for (const file of ['dashboard-board.svg', 'dashboard-board.png', 'dashboard-hostile.svg', 'dashboard-hostile.png'])
      expect(existsSync(join(dir, 'previews', file)), file).toBe(true);
    expect(readFileSync(join(dir, 'previews/dashboard-board.png')).subarray(1, 4).toString()).toBe('PNG');
    // The line tile's last hours from the chart series API on the after side; the before side is the layout alone.
    expect(readFileSync(join(dir, 'previews/dashboard-board.svg'), 'utf8').match(/no data preview/g)).toHaveLength(1);
    expect(readFileSync(join(dir, 'previews/dashboard-hostile.svg'), 'utf8')).not.toContain('no data preview');
  });

  it.skipIf(missing !== null)('in Chromium: tiles on the grid, the changed tile outlined, a hostile name inert', async () => {
    const page = await (browser as Browser).context.newPage();
    await page.goto(pathToFileURL(join(dir, 'previews/dashboard-board.svg')).href);
    const frames = (await page.evaluate(
      `[...document.querySelectorAll('path[stroke="#8a94a6"], path[stroke="#d9480f"]')].map((p) => {
        const box = p.getBBox();
        return { stroke: p.getAttribute('stroke'), x: box.x, width: box.width };
      })`,
    )) as { stroke: string; x: number; width: number }[];
    const width = Number(await page.evaluate(`document.documentElement.getAttribute('width')`));
    // Before (left panel) then after (right panel): each half holds a tile at x=0 and one at x=12, w=12.
    const after = frames.filter((f) => f.x >= width / 2);
    const afterLeft = width / 2 + 3;
    expect(after).toHaveLength(2);
    const right = after.find((f) => f.x > afterLeft + 100);
    expect(right?.stroke).toBe('#d9480f');
    expect(after.find((f) => f !== right)?.stroke).toBe('#8a94a6');
    expect(right && right.x + right.width).toBeGreaterThan(width - 20);

    await page.goto(pathToFileURL(join(dir, 'previews/dashboard-hostile.svg')).href);
    const shown = await page.evaluate(`({
      scripts: document.querySelectorAll('script').length,
      pwned: window.pwned ?? null,
      title: [...document.querySelectorAll('text')].map((t) => t.textContent ?? '').find((t) => t.includes('script')) ?? null,
    })`);
    expect(shown).toEqual({ scripts: 0, pwned: null, title: HOSTILE });
    await page.close();
  });
});
