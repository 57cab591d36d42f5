import { describe, expect, it } from 'vitest';
import type { Backtest } from '../../core/backtest.js';
import { registerSecret } from '../../core/scrub.js';
import { backtestChartSpec, episodesText, valueRange } from './backtest-model.js';
import { BACKTEST_GRID, backtestOption, SIDE_COLORS } from './backtest-option.js';
import type { Plan } from '../../core/plan.js';
import { backtestPictures } from './backtest-pictures.js';
import { dashboardPictures } from './dashboard.js';
import { reportPictures } from './report-pictures.js';
import { svgOf } from './svg.js';

const HOSTILE = '</text><script>alert(1)</script>" onload="alert(2)" x=\'\u202e';
const T0 = Date.UTC(2026, 10, 22, 0, 0);
const H = 3_600_000;

/** An update 500 → 400 over 12 hourly points: the new threshold fires at points 3-4 and 8, the old at 8. */
function update(): Backtest {
  return {
    status: 'ok',
    window: '12h',
    episodes: 2,
    fired: [
      [T0 + 3 * H, T0 + 5 * H],
      [T0 + 8 * H, T0 + 9 * H],
    ],
    threshold: { type: 'above', value: 400 },
    series: { start: T0, stepMs: H, values: [100, 200, 300, 450, 420, 300, null, 200, 550, 100, 50, 0] },
    before: { status: 'ok', episodes: 1, fired: [[T0 + 8 * H, T0 + 9 * H]], threshold: { type: 'above', value: 500 } },
  };
}

describe('backtest chart model', () => {
  it('draws the series, both thresholds, the firing windows of each side and the episodes of each', () => {
    const spec = backtestChartSpec('Alert/errors', 'Errors', update());
    if ('skipped' in spec) throw new Error(spec.skipped);
    expect(spec.from).toBe(T0);
    expect(spec.to).toBe(T0 + 12 * H);
    expect(spec.points[6]).toEqual([T0 + 6 * H, null]);
    expect(spec.lines).toEqual([
      { side: 'old', value: 500, label: 'old threshold above 500' },
      { side: 'new', value: 400, label: 'new threshold above 400' },
    ]);
    expect(spec.shaded).toEqual([
      { side: 'old', from: T0 + 8 * H, to: T0 + 9 * H },
      { side: 'new', from: T0 + 3 * H, to: T0 + 5 * H },
      { side: 'new', from: T0 + 8 * H, to: T0 + 9 * H },
    ]);
    expect(episodesText(spec)).toBe('episodes: old 1 → new 2');
    expect(valueRange(spec)).toEqual({ min: 0, max: 605 });
  });

  it('draws one line for an unchanged threshold, two for between, and skips a backtest without a series', () => {
    const same = { ...update(), before: { ...update().before, status: 'ok' as const, threshold: { type: 'above', value: 400 } } };
    const spec = backtestChartSpec('Alert/a', 'a', same);
    expect('lines' in spec && spec.lines).toEqual([{ side: 'new', value: 400, label: 'threshold above 400 (unchanged)' }]);
    const between = backtestChartSpec('Alert/a', 'a', { ...update(), before: undefined, threshold: { type: 'between', value: 1, max: 9 } });
    expect('lines' in between && between.lines.map((l) => l.value)).toEqual([1, 9]);
    expect('lines' in between && episodesText(between)).toBe('2 episodes');
    expect(backtestChartSpec('Alert/a', 'a', { ...update(), series: undefined })).toEqual({
      skipped: 'the backtest carries no series (a plan saved before backtest charts)',
    });
    expect(backtestChartSpec('Alert/a', 'a', { status: 'skipped', window: '7d' })).toEqual({ skipped: 'backtest skipped' });
  });

  it('renders an SVG whose threshold lines and shading use the side colours, a hostile name as text', () => {
    const spec = backtestChartSpec('Alert/x', HOSTILE, update());
    if ('skipped' in spec) throw new Error(spec.skipped);
    const svg = svgOf(backtestOption(spec));
    expect(svg).not.toMatch(/<script/i);
    expect(svg).not.toMatch(/<[^>]*\son\w+=/i);
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;');
    expect(svg).toContain('new threshold above 400');
    expect(svg).toContain('old threshold above 500');
    expect(svg).toContain(`stroke="${SIDE_COLORS.new}"`);
    expect(svg).toContain(`fill="${SIDE_COLORS.old}"`);
    expect(BACKTEST_GRID.width).toBeGreaterThan(0);
    const [picture] = backtestPictures([{ address: 'Alert/x', name: 'x', backtest: update() }]);
    expect(picture && 'base' in picture && picture.base).toBe('backtest-x');
  });
});

describe('the charts of the alerts an impact backtests', () => {
  it('draws each impacted alert beside the own alert steps, named impact-… so no name collides with a backtest-… one', async () => {
    const own = {
      kind: 'Alert',
      action: 'update',
      address: 'Alert/errors',
      name: 'errors',
      payload: { name: 'Errors' },
      backtest: update(),
    };
    const impacted = (name: string, address?: string) => ({
      kind: 'Alert',
      id: `id-${name}`,
      name,
      owned: true,
      declared: address !== undefined,
      ...(address ? { address } : {}),
      backtest: update(),
    });
    const tileStep = {
      kind: 'Dashboard',
      action: 'update',
      address: 'Dashboard/ops',
      name: 'ops',
      impact: [{ kind: 'tile-alerts', what: 'tile p99: query changed', objects: [impacted('errors', 'Alert/errors'), impacted('Slow')] }],
    };
    const plan = { steps: [own, tileStep] } as unknown as Plan;
    const drawn = await reportPictures({ plan }, { png: false });
    expect(drawn.map(({ picture, title }) => [picture.address, 'base' in picture ? picture.base : picture.skipped, title])).toEqual([
      ['Alert/errors', 'backtest-errors', 'Errors'],
      ['Alert/errors', 'impact-errors', 'errors'],
      ["Alert 'Slow' (id id-Slow)", 'impact-alert-slow-id-id-slow', 'Slow'],
    ]);
  });
});

describe('the secrets canary in pictures', () => {
  it('masks a known secret in every picture obsync writes: a dashboard preview and a backtest chart', () => {
    const secret = 'picture-canary-secret-5521';
    registerSecret(secret);
    const [chart] = backtestPictures([{ address: 'Alert/leak', name: `errors ${secret}`, backtest: update() }]);
    const tile = { name: `tile ${secret}`, x: 0, y: 0, w: 12, h: 4, config: { displayType: 'markdown', markdown: secret } };
    const [dashboard] = dashboardPictures([{ address: 'Dashboard/leak', name: `board ${secret}`, after: { name: secret, tiles: [tile] } }]);
    for (const picture of [chart, dashboard]) {
      if (!picture || !('svg' in picture)) throw new Error(`not drawn: ${JSON.stringify(picture)}`);
      // A boolean, not toContain: a failure would print the leaked text in full.
      expect(picture.svg.includes(secret), picture.address).toBe(false);
      expect(picture.svg).toContain('(sensitive)');
    }
  });
});
