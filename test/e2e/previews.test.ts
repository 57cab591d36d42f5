/**
 * Issue 42: `obsync plan --preview-dir` against the sandbox (self-hosted), and the SVG it writes
 * opened in headless Chromium: the tiles where the 24-column grid puts them, the changed tile
 * outlined, a hostile dashboard name shown as text with no script run; a line tile drawn with the
 * sandbox's series; the markdown plan as two GFM renderers turn it into HTML (marked, micromark), its
 * preview images loading from their relative links. One sandbox, one browser.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { marked } from 'marked';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import type { Plan } from '../../src/core/plan.js';
import { backtestMermaid } from '../../src/render/backtest-mermaid.js';
import { backtestChartSpec, valueRange } from '../../src/render/preview/backtest-model.js';
import { BACKTEST_GRID, SIDE_COLORS } from '../../src/render/preview/backtest-option.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { chromiumMissing, launchBrowser, type Browser } from '../support/browser.js';
import { assertBuilt, runCli } from '../support/cli.js';

const HOSTILE = '</text><script>window.pwned=1</script>';

type Page = Awaited<ReturnType<Browser['context']['newPage']>>;

/** What a person opening the SVG gets: scripts in the document, whether one ran, and the hostile title's text. */
async function shownFrom(page: Page, svg: string): Promise<unknown> {
  await page.goto(pathToFileURL(svg).href);
  return page.evaluate(`({
    scripts: document.querySelectorAll('script').length,
    pwned: window.pwned ?? null,
    title: [...document.querySelectorAll('text')].map((t) => t.textContent ?? '').find((t) => t.includes('script')) ?? null,
  })`);
}
const missing = chromiumMissing();
let markdown = '';
let plan: Plan | undefined;

function mermaidBlocks(text: string): string[] {
  return [...text.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? '');
}
let sandbox: SandboxHandle;
let browser: Browser | undefined;
let dir: string;

/** The alerts on the board's line tile: 500 on apply, 1 in the plan (an update), and a new one named as an attack. */
function alerts(threshold: number, hostile: boolean): string {
  const alert = (name: string, display: string, t: number) =>
    `---\napiVersion: obsync/v1\nkind: Alert\nmetadata: {name: ${name}}\nspec: {dashboard: board, tile: left, threshold: ${t}, ` +
    `thresholdType: above, interval: 1h, channel: {type: webhook, webhook: ops-slack}, name: ${JSON.stringify(display)}}\n`;
  return alert('errors', 'Errors', threshold) + (hostile ? alert('hostile', HOSTILE, 2) : '');
}

function manifests(where: string, hostile = false): void {
  rmSync(join(dir, 'm'), { recursive: true, force: true });
  mkdirSync(join(dir, 'm'));
  const tile = (key: string, x: number, display: string, w: string) =>
    `{key: ${key}, name: ${key}, x: ${x}, y: 0, w: 12, h: 4, config: {displayType: ${display}, source: Logs, select: [{aggFn: count, ` +
    `where: '${w}'}]}}`;
  writeFileSync(
    join(dir, 'm/all.yaml'),
    `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: board}\nspec: {name: Board, tiles: [` +
      `${tile('left', 0, 'line', 'SeverityText:error')}, ` +
      `${tile('right', 12, 'number', where)}, ` +
      `{key: share, name: share, x: 0, y: 4, w: 12, h: 5, config: {displayType: pie, source: Logs, select: [{aggFn: count, where: ''}], ` +
      `groupBy: ServiceName}}]}\n---\n` +
      (hostile
        ? `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: hostile}\nspec: {name: ${JSON.stringify(HOSTILE)}, tiles: ` +
          `[${tile('t', 0, 'line', 'x')}]}\n`
        : '') +
      alerts(hostile ? 1 : 500, hostile),
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
    // The line tile's last hours from the chart series API on both sides of the update (the same query: asked once).
    expect(readFileSync(join(dir, 'previews/dashboard-board.svg'), 'utf8')).not.toContain('no data preview');
    expect(readFileSync(join(dir, 'previews/dashboard-hostile.svg'), 'utf8')).not.toContain('no data preview');
    // The backtest charts: files beside the dashboards', linked the same way, and a Mermaid block per alert.
    expect(md.stdout).toContain('[![Alert/errors](previews/backtest-errors.png)](previews/backtest-errors.svg)');
    for (const file of ['backtest-errors.svg', 'backtest-errors.png', 'backtest-hostile.svg', 'backtest-hostile.png'])
      expect(existsSync(join(dir, 'previews', file)), file).toBe(true);
    markdown = md.stdout;
    expect(mermaidBlocks(markdown)).toHaveLength(2);
    const json = await cli('plan', '--output', 'json');
    expect(json.code, json.stderr).toBe(0);
    plan = (JSON.parse(json.stdout) as { targets: Plan[] }).targets[0];
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
    expect(after).toHaveLength(3);
    const right = after.find((f) => f.x > afterLeft + 100);
    expect(right?.stroke).toBe('#d9480f');
    expect(after.find((f) => f !== right)?.stroke).toBe('#8a94a6');
    expect(right && right.x + right.width).toBeGreaterThan(width - 20);
    // The pie tile (after side): as many sectors drawn as groups in its legend, and more than one.
    const pie = (await page.evaluate(
      `(() => {
        const half = Number(document.documentElement.getAttribute('width')) / 2;
        const right = (e) => e.getBoundingClientRect().x >= half;
        const sectors = [...document.querySelectorAll('path[ecmeta_ssr_type="chart"]')]
          .filter((p) => /A/.test(p.getAttribute('d') ?? '') && p.getAttribute('fill') !== 'none' && right(p)).length;
        const legend = [...document.querySelectorAll('text')]
          .filter((t) => /font-size:9px/.test(t.getAttribute('style') ?? '') && /: [0-9]/.test(t.textContent ?? '') && right(t)).length;
        return { sectors, legend };
      })()`,
    )) as { sectors: number; legend: number };
    expect(pie.sectors).toBeGreaterThan(1);
    expect(pie.sectors).toBe(pie.legend);

    expect(await shownFrom(page, join(dir, 'previews/dashboard-hostile.svg'))).toEqual({ scripts: 0, pwned: null, title: HOSTILE });
    await page.close();
  });

  it.skipIf(missing !== null)(
    'in Chromium: the Mermaid parser itself reads every backtest block, whatever the alert is named',
    async () => {
      const page = await (browser as Browser).context.newPage();
      await page.addScriptTag({ path: createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js') });
      const step = plan?.steps.find((s) => s.address === 'Alert/errors');
      if (!step?.backtest) throw new Error('the plan backtests Alert/errors');
      const backtest = step.backtest;
      const names = fc.sample(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.string({ unit: fc.constantFrom('"', '%%{init: {}}%%', '#quot;', ';', '<b>', '`', '\n') }),
        ),
        { numRuns: 40, seed: 42 },
      );
      const blocks = [
        ...mermaidBlocks(markdown),
        ...[HOSTILE, ...names].map((n) => mermaidBlocks(backtestMermaid('Alert/x', n, backtest))[0] ?? ''),
      ];
      // A control: the parser refuses a title a raw quote ends early, so a pass below means something.
      const parsed = (await page.evaluate(
        `(async (blocks) => Promise.all(blocks.map((b) => ` +
          `window.mermaid.parse(b).then(() => 'ok', (e) => String(e).slice(0, 200)))))(${JSON.stringify([
            'xychart-beta\n  title "a"b"\n  line [1, 2]',
            ...blocks,
          ])})`,
      )) as string[];
      expect(parsed[0]).not.toBe('ok');
      expect(parsed.slice(1).filter((r) => r !== 'ok')).toEqual([]);
      expect(parsed).toHaveLength(blocks.length + 1);
      await page.close();
    },
  );

  it.skipIf(missing !== null)(
    'in Chromium: the backtest chart draws each threshold at its value and shades where the backtest fires',
    async () => {
      const step = plan?.steps.find((s) => s.address === 'Alert/errors');
      const spec = step?.backtest && backtestChartSpec('Alert/errors', 'Errors', step.backtest);
      if (!spec || 'skipped' in spec) throw new Error('the plan backtests Alert/errors with a series');
      expect(spec.lines.map((l) => [l.side, l.value])).toEqual([
        ['old', 500],
        ['new', 1],
      ]);
      const page = await (browser as Browser).context.newPage();
      await page.goto(pathToFileURL(join(dir, 'previews/backtest-errors.svg')).href);
      const drawn = (await page.evaluate(`({
      lines: [...document.querySelectorAll('path[ecmeta_ssr_type="chart"]')]
        .filter((p) => p.getBBox().width > 300 && p.getBBox().height < 1)
        .map((p) => ({ stroke: p.getAttribute('stroke'), y: p.getBBox().y })),
      areas: [...document.querySelectorAll('polygon')]
        .map((p) => ({ fill: p.getAttribute('fill'), x: p.getBBox().x, right: p.getBBox().x + p.getBBox().width })),
    })`)) as { lines: { stroke: string; y: number }[]; areas: { fill: string; x: number; right: number }[] };
      const range = valueRange(spec);
      const yOf = (v: number) => BACKTEST_GRID.top + BACKTEST_GRID.height * (1 - (v - range.min) / (range.max - range.min));
      const xOf = (t: number) => BACKTEST_GRID.left + (BACKTEST_GRID.width * (t - spec.from)) / (spec.to - spec.from);
      for (const l of spec.lines) {
        const line = drawn.lines.find((d) => d.stroke === SIDE_COLORS[l.side]);
        expect(Math.abs((line?.y ?? -99) - yOf(l.value)), l.label).toBeLessThan(1.5);
      }
      const shadedNew = spec.shaded.filter((s) => s.side === 'new');
      expect(shadedNew.length).toBeGreaterThan(0);
      const areas = drawn.areas.filter((a) => a.fill === SIDE_COLORS.new);
      expect(areas).toHaveLength(shadedNew.length);
      shadedNew.forEach((s, i) => {
        expect(Math.abs((areas[i]?.x ?? -99) - xOf(s.from))).toBeLessThan(1.5);
        expect(Math.abs((areas[i]?.right ?? -99) - xOf(s.to))).toBeLessThan(1.5);
      });

      expect(await shownFrom(page, join(dir, 'previews/backtest-hostile.svg'))).toEqual({ scripts: 0, pwned: null, title: HOSTILE });
      await page.close();
    },
  );

  it.skipIf(missing !== null)(
    'the markdown plan in two GFM renderers: each preview image loads from its relative link, Mermaid blocks stay code, names stay text',
    async () => {
      const links = [...markdown.matchAll(/\[!\[[^\]]*\]\(([^)]+)\)\]\(([^)]+)\)/g)].map((m) => ({ png: m[1], svg: m[2] }));
      expect(links.length).toBe(4);
      const renderers = {
        marked: marked.parse(markdown, { gfm: true, async: false }),
        micromark: micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }),
      };
      const page = await (browser as Browser).context.newPage();
      for (const [name, html] of Object.entries(renderers)) {
        // Beside the previews folder, as a CI job puts the comment's HTML next to the uploaded artifact.
        const file = join(dir, `plan-${name}.html`);
        writeFileSync(file, `<!doctype html><meta charset="utf-8"><body>${html}</body>`);
        await page.goto(pathToFileURL(file).href);
        await page.waitForLoadState('load');
        const seen = (await page.evaluate(`({
          images: [...document.querySelectorAll('a > img')].map((i) => ({
            src: i.getAttribute('src'), href: i.parentElement.getAttribute('href'), loaded: i.complete && i.naturalWidth > 0 })),
          mermaid: [...document.querySelectorAll('pre > code.language-mermaid')].map((c) => c.textContent),
          scripts: document.querySelectorAll('script').length,
          handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
          pwned: window.pwned ?? null,
        })`)) as { images: { src: string; href: string; loaded: boolean }[]; mermaid: string[]; scripts: number; handlers: number };
        expect(seen.images, name).toEqual(links.map((l) => ({ src: l.png, href: l.svg, loaded: true })));
        expect(
          seen.mermaid.map((m) => m.trimEnd()),
          name,
        ).toEqual(mermaidBlocks(markdown));
        expect(seen, name).toMatchObject({ scripts: 0, handlers: 0, pwned: null });
        // The hostile dashboard and alert names are on the page as the text they are.
        expect(await page.evaluate('document.body.textContent'), name).toContain(HOSTILE);
      }
      await page.close();
    },
  );
});
