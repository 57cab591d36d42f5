import { describe, expect, it } from 'vitest';
import { parseYamlFile } from './parse.js';

const MANIFEST = `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: checkout
spec:
  name: Checkout service
  tags: [payments]
  tiles:
    - key: p99
      name: p99 latency
      x: 0
      y: 0
      w: 12
      h: 4
      config:
        displayType: line
        source: Traces
        select:
          - {aggFn: quantile, level: 0.99, valueExpression: Duration}
---
apiVersion: obsync/v1
kind: Alert
metadata:
  name: checkout-p99-high
spec:
  dashboard: checkout
  tile: p99
  interval: 5m
  threshold: 500
  thresholdType: above
  channel: {type: webhook, webhook: ops-slack}
`;

const LINES = MANIFEST.split('\n');

/** The manifest with line `n` (1-based) replaced. */
function withLine(n: number, text: string): string {
  return LINES.map((l, i) => (i === n - 1 ? text : l)).join('\n');
}

function errors(text: string) {
  return parseYamlFile('m.yaml', text).diagnostics.map((d) => ({ line: d.line, col: d.col, message: d.message }));
}

describe('YAML syntax errors: one per mistake, at its line, with a plain hint', () => {
  it.each([
    ['a tab', withLine(10, '\tname: p99 latency'), 10, 'a tab indents this line; YAML indents with spaces only'],
    ['a missing colon', withLine(7, '  tags [payments]'), 7, "a colon is missing after 'tags': write 'tags: [payments]'"],
    ['no space after the colon', withLine(13, '      w:12'), 13, "a space is missing after the colon: write 'w: 12', not 'w:12'"],
    ['no space after a list dash', withLine(9, '    -key: p99'), 9, "a space is missing after the '-' of this list item"],
    ['a line indented one space less', withLine(11, '     x: 0'), 11, 'line 12 is indented more than this line (6 spaces there, 5 here)'],
    [
      'a line indented two spaces more',
      withLine(7, '    tags: [payments]'),
      6,
      'line 7 is indented more than this line (4 spaces there, 2 here)',
    ],
    ['a bracket never closed', withLine(7, '  tags: [payments'), 7, "the '[' opened here is never closed"],
    ['a quote never closed', withLine(6, '  name: "Checkout service'), 6, 'the " opened here is never closed'],
    ['a key written twice', withLine(30, '  threshold: 5m'), 30, "the key 'threshold' appears twice in this mapping"],
  ])('%s', (_what, text, line, hint) => {
    const found = errors(text);
    expect(found).toHaveLength(1);
    expect(found[0]?.line).toBe(line);
    expect(found[0]?.message).toContain(`YAML: ${hint}`);
  });

  it('two mistakes in two documents are two errors', () => {
    const text = withLine(30, 'threshold 500').split('\n');
    text[9] = '\tname: p99 latency';
    expect(errors(text.join('\n')).map((e) => e.line)).toEqual([10, 30]);
  });

  it('a single damaged line is never reported more than once, and never far from it (every line, every damage)', () => {
    const damages: [string, (l: string) => string][] = [
      ['one space more', (l) => l.replace(/^( *)/, '$1 ')],
      ['one space less', (l) => l.replace(/^ /, '')],
      ['a tab', (l) => l.replace(/^ */, '\t')],
      ['the colon gone', (l) => l.replace(/: /, ' ')],
      ['the space after the colon gone', (l) => l.replace(/: /, ':')],
    ];
    let reported = 0;
    LINES.forEach((before, i) => {
      for (const [what, hurt] of damages) {
        const after = hurt(before);
        if (after === before || before.trim() === '---') continue;
        const found = errors(withLine(i + 1, after));
        const where = `line ${i + 1}, ${what}: ${JSON.stringify(found)}`;
        expect(found.length, where).toBeLessThanOrEqual(1);
        for (const e of found) expect(Math.abs((e.line ?? 0) - (i + 1)), where).toBeLessThanOrEqual(1);
        reported += found.length;
      }
    });
    expect(reported).toBeGreaterThan(50); // most damages are mistakes the parser sees
  });
});
