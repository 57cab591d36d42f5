import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Backtest } from '../core/backtest.js';
import { backtestMermaid, decimal, MERMAID_POINTS } from './backtest-mermaid.js';
import { choose, omissionNotice, type Block } from './markdown-budget.js';
import { mermaidText } from './preview/text.js';

const T0 = Date.UTC(2026, 10, 22);
const STEP = 300_000;

function backtest(values: (number | null)[]): Backtest {
  return {
    status: 'ok',
    window: '7d',
    episodes: 3,
    fired: [[T0, T0 + STEP]],
    threshold: { type: 'above', value: 400 },
    series: { start: T0, stepMs: STEP, values },
    before: { status: 'ok', episodes: 1, threshold: { type: 'above', value: 500 } },
  };
}

/** Mermaid's xychart lexer: a number token, and a quoted text (a string ends at the first `"`). */
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;
const TEXT = /^"[^"]*"$/;
/** Any text, with Mermaid's and markup's own characters often enough to matter. */
const ALERT_NAME = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: fc.constantFrom('"', '%', '%%{init: {}}%%', '#quot;', ';', '<', '>', '&', '`', '{', '}', '\n', '\r', 'a', ' ', ':') }),
);

/** The block's statements against xychart's grammar, line by line (Mermaid's own parser: test/e2e/previews.test.ts). */
function statements(block: string): string[] {
  const body = block.split('\n').slice(1, block.split('\n').indexOf('```', 1));
  expect(body[0]).toBe('xychart-beta');
  for (const line of body.slice(1)) {
    const m = /^ {2}(title|x-axis|y-axis|line) (".*?")(?: (\S+) --> (\S+)| \[(.*)\])?$/.exec(line);
    expect(m, line).not.toBeNull();
    expect(m?.[2]).toMatch(TEXT);
    for (const n of [m?.[3], m?.[4], ...(m?.[5]?.split(', ') ?? [])]) if (n !== undefined) expect(n).toMatch(NUMBER);
  }
  return body;
}

describe('backtest Mermaid block', () => {
  it('draws the series downsampled to at most 60 points, keeping the peaks, and each threshold as a flat line', () => {
    const values = Array.from({ length: 120 }, (_, i) => (i === 7 ? 900 : i === 8 ? null : i % 10));
    const block = backtestMermaid('Alert/errors', 'Errors', backtest(values));
    const body = statements(block);
    expect(body).toContain('  title "Errors: backtest 7d, episodes: old 1 → new 3"');
    expect(body).toContain('  x-axis "hours before the plan" -10 --> 0');
    expect(body).toContain('  y-axis "value" 0 --> 990');
    const series = body
      .find((l) => l.startsWith('  line "value"'))
      ?.match(/\[(.*)\]/)?.[1]
      ?.split(', ');
    expect(series).toHaveLength(MERMAID_POINTS);
    expect(series?.slice(0, 5)).toEqual(['1', '3', '5', '900', '9']);
    expect(body.find((l) => l.startsWith('  line "old threshold above 500"'))).toBe(
      `  line "old threshold above 500" [${Array(60).fill('500').join(', ')}]`,
    );
    expect(block).toContain('60 points over 7d, downsampled');
    expect(backtestMermaid('Alert/x', 'x', { status: 'unavailable', window: '7d' })).toBe('');
  });

  it('any alert name yields statements the grammar reads: one quoted text, no directive, comment or entity', () => {
    fc.assert(
      fc.property(ALERT_NAME, (name) => {
        const block = backtestMermaid('Alert/x', name, backtest([1, 2, 3]));
        const [title] = statements(block).filter((l) => l.startsWith('  title'));
        expect(title).not.toMatch(/%|#|;|<|>|&|`|\{|\}|\r|\n/);
        expect(mermaidText(name)).not.toMatch(/["%#;<>&`{}\p{Cc}\p{Cf}\u2028\u2029]/u);
      }),
    );
  });

  it('writes every number as Mermaid reads one: no exponent, no NaN', () => {
    fc.assert(
      fc.property(fc.double(), (v) => {
        expect(decimal(v)).toMatch(NUMBER);
      }),
    );
    expect([1e25, -1e-7, 123.456789, -0, Number.NaN].map(decimal)).toEqual([
      '10000000000000000000000000',
      '-0.0000001',
      '123.457',
      '0',
      '0',
    ]);
  });

  it('is dropped before any details or row when the comment is too long, with a note', () => {
    const blocks: Block[] = [
      { text: 'head\n', kind: 'essential' },
      { text: 'r'.repeat(10), kind: 'row', address: 'Alert/a' },
      { text: 'd'.repeat(50), kind: 'details', address: 'Alert/a' },
      { text: 'c'.repeat(100), kind: 'chart', address: 'Alert/a' },
    ];
    const [fits] = choose([blocks], 170);
    expect([...(fits ?? [])]).toEqual([0, 1, 2, 3]);
    const [tight] = choose([blocks], 120);
    expect([...(tight ?? [])]).toEqual([0, 1, 2]);
    expect(omissionNotice(blocks, tight ?? new Set(), undefined)).toContain(
      '**Truncated:** 1 backtest chart(s) dropped: the plan is too large',
    );
  });
});
