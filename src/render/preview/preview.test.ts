import { describe, expect, it } from 'vitest';
import type { Plan } from '../../core/plan.js';
import type { JsonObject } from '../../core/wire.js';
import { baseNames, dashboardPictures } from './dashboard.js';
import { PANEL_WIDTH } from './layout.js';
import { dashboardOption } from './option.js';
import { reportPictures } from './report-pictures.js';
import { svgOf } from './svg.js';

const HOSTILE = '</text><script>alert(1)</script>" onload="alert(2)" x=\'\u202e';

function dashboard(name: string, where = 'level:error'): JsonObject {
  return {
    name,
    tiles: [
      { id: 'a', name: HOSTILE, x: 0, y: 0, w: 12, h: 4, config: { displayType: 'line', select: [{ aggFn: 'count', where }] } },
      { id: 'b', name: 'p99', x: 12, y: 0, w: 12, h: 4, config: { displayType: 'number', select: [{ aggFn: 'count', where: HOSTILE }] } },
    ],
  };
}

/**
 * A small XML check of the SVG: every tag is well formed, every attribute quoted and closed, and
 * the elements are only those a chart is made of.
 */
function elementsOf(svg: string): string[] {
  const names: string[] = [];
  // ECharts' own hover CSS: no markup and no text of ours inside.
  const css = [...svg.matchAll(/<!\[CDATA\[([^<>]*)\]\]>/g)].map((m) => m[1] ?? '');
  for (const rule of css) expect(rule).not.toMatch(/alert|text|script/);
  const rest = svg
    .replace(/<!\[CDATA\[[^<>]*\]\]>/g, '')
    .replace(/<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g, (_m, _close: string, name: string, attributes: string) => {
      names.push(name);
      for (const a of attributes.matchAll(/([\w:-]+)="/g)) names.push(`@${a[1] ?? ''}`);
      return '';
    });
  expect(rest).not.toMatch(/[<>]/);
  return names;
}

describe('dashboard previews', () => {
  it('draws a hostile dashboard or tile name as text: no script element, no attribute break, controls escaped', () => {
    const svg = svgOf(dashboardOption({ address: 'Dashboard/x', name: HOSTILE, after: dashboard(HOSTILE), before: dashboard('old') }));
    const elements = new Set(elementsOf(svg));
    expect([...elements].filter((e) => !e.startsWith('@')).sort()).toEqual(['path', 'rect', 'style', 'svg', 'text']);
    expect([...elements].filter((e) => /^@on/i.test(e))).toEqual([]);
    expect(svg).not.toMatch(/<script/i);
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;');
    expect(svg).not.toContain('\u202e');
    expect(svg).toContain('\\u202e');
  });

  it('places tiles on the 24-column grid and outlines the changed tile of an update', () => {
    const picture = dashboardOption({ address: 'Dashboard/x', name: 'x', after: dashboard('x', 'level:warn'), before: dashboard('x') });
    expect(picture.width).toBeGreaterThan(2 * PANEL_WIDTH);
    const svg = svgOf(picture);
    expect(svg.match(/stroke="#d9480f"/g)).toHaveLength(1);
  });

  it('draws the data of a line tile as a series, and says why a tile has none', () => {
    const points = [0, 1, 2].map((i) => ({ bucket: Date.UTC(2026, 0, 1, 0, 5 * i), group: '', value: i * 10 }));
    const withData = svgOf(dashboardOption({ address: 'Dashboard/x', name: 'x', after: dashboard('x'), data: [{ points }, { points }] }));
    expect(withData).not.toContain('no data preview');
    expect(withData).toContain('>00:10<');
    const without = svgOf(
      dashboardOption({ address: 'Dashboard/x', name: 'x', after: dashboard('x'), data: [{ reason: 'hosted: no chart series API' }] }),
    );
    expect(without).toContain('no data preview: hosted: no chart series API');
  });

  it('draws the before side of an update with its own data: one time axis per panel, no "no data preview" left', () => {
    const points = (k: number) => [0, 1, 2].map((i) => ({ bucket: Date.UTC(2026, 0, 1, 0, 5 * i), group: '', value: i * k }));
    const update = { address: 'Dashboard/x', name: 'x', after: dashboard('x', 'level:warn'), before: dashboard('x') };
    const both = svgOf(
      dashboardOption({
        ...update,
        data: [{ points: points(10) }, { points: points(1) }],
        beforeData: [{ points: points(30) }, { points: points(1) }],
      }),
    );
    expect(both).not.toContain('no data preview');
    expect(both.match(/>00:10</g)).toHaveLength(2);
    const afterOnly = svgOf(dashboardOption({ ...update, data: [{ points: points(10) }, undefined] }));
    expect(afterOnly.match(/>00:10</g)).toHaveLength(1);
    expect(afterOnly).toContain('no data preview');
  });

  it('writes an SVG and a PNG per dashboard under stable names, and a failure is a skip with its reason', () => {
    const [ok, bad] = dashboardPictures([
      { address: 'Dashboard/checkout', name: 'Checkout', after: dashboard('Checkout') },
      {
        address: 'Dashboard/broken',
        name: 'b',
        after: {
          name: 'b',
          tiles: [
            {
              x: Number.NaN,
              get y(): number {
                throw new Error('boom');
              },
            },
          ],
        } as unknown as JsonObject,
      },
    ]);
    expect(ok && 'png' in ok && ok.base).toBe('dashboard-checkout');
    expect(ok && 'png' in ok && [...(ok.png ?? Buffer.alloc(0)).subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    expect(bad).toEqual({ address: 'Dashboard/broken', skipped: 'boom' });
    expect(baseNames([{ address: 'Dashboard/a b' }, { address: 'Dashboard/a-b' }, { address: 'Dashboard/ü' }])).toEqual([
      expect.stringMatching(/^dashboard-a-b-[0-9a-f]{8}$/),
      expect.stringMatching(/^dashboard-a-b-[0-9a-f]{8}$/),
      expect.stringMatching(/^dashboard-[0-9a-f]{8}$/),
    ]);
  });

  it("draws a plan's pictures SVG only when asked, at most `max` of them, the rest skipped without drawing", async () => {
    const input = (name: string) => ({ address: `Dashboard/${name}`, name: `Title ${name}`, after: dashboard(name) });
    const plan = { steps: [] } as unknown as Plan;
    const drawn = await reportPictures({ plan, previews: [input('a'), input('b')] }, { png: false, max: 1 });
    expect(drawn.map((d) => d.title)).toEqual(['Title a', 'Title b']);
    const [first, second] = drawn.map((d) => d.picture);
    expect(first && 'svg' in first && first.png).toBeUndefined();
    expect(first && 'svg' in first && first.svg).toMatch(/^<svg/);
    expect(second).toEqual({ address: 'Dashboard/b', skipped: 'over the 1 pictures kept of a plan' });
  });
});
