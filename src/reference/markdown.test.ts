import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cell, code, text } from './markdown.js';

/** The stretches of text between code spans: where a Vue template would see tags and interpolations. */
const outside = (s: string) => s.split(/`[^`]*`/);

describe('markdown escaping for GitHub and VitePress', () => {
  it('leaves no tag opener, interpolation or line break outside code spans, and code spans as they were', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '<', '>', '{', '}', '|', '`', ' ', '\n', 'x') }), (s) => {
        const out = text(s);
        for (const part of outside(out)) expect(part).not.toMatch(/<|\{\{|\n/);
        for (const span of s.replace(/\n/g, ' ').match(/`[^`]*`/g) ?? []) expect(out).toContain(span);
      }),
    );
  });

  it('escapes a cell separator, inside code spans too', () => {
    expect(cell('a | b `c | d`')).toBe('a \\| b `c \\| d`');
    expect(text('--out <file>, ${env:X}, {{ x }}')).toBe('--out &lt;file>, ${env:X}, &#123;&#123; x }}');
  });

  it('wraps any text in a code span that shows it whole', () => {
    expect(code('a`b')).toBe('``a`b``');
    expect(code('`a')).toBe('`` `a ``');
    expect(code('plain')).toBe('`plain`');
  });
});
