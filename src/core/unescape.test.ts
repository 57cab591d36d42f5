import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapedPerCharacter, STYLES } from '../../test/support/echoes.js';
import { decodedViews, decodeOnce, sourceRange } from './unescape.js';

describe('decodeOnce', () => {
  it.each([
    ['a\\/b', 'a/b'],
    ['x\\u0026y\\u003cz\\u003E', 'x&y<z>'],
    ['\\x2f\\x2F', '//'],
    ['&amp;&lt;&GT;&quot;&#47;&#x2F;&sol;&#x1F511;', '&<>"///🔑'],
    ['%2f%2F%41%e7%a7%98%F0%9F%94%91', '//A秘🔑'],
    ['50% off &nbsp &amp \\q %zz %e7%a7', '50% off &nbsp &amp \\q %zz %e7%a7'],
    ['\\', '\\'],
    ['%C0%AF %ED%A0%80', '%C0%AF %ED%A0%80'],
  ])('decodes %j to %j, and leaves what is not a complete escape', (text, decoded) => {
    expect(decodeOnce(text).text).toBe(decoded);
  });

  it('says for each decoded unit which characters it came from', () => {
    const view = decodeOnce('a%2Fb&amp;c');
    expect(view.text).toBe('a/b&c');
    expect([...view.starts]).toEqual([0, 1, 4, 5, 10]);
    expect([0, 1, 2, 3, 4].map((k) => sourceRange(view, k, k + 1))).toEqual([
      [0, 1],
      [1, 4],
      [4, 5],
      [5, 10],
      [10, 11],
    ]);
    expect(sourceRange(decodeOnce('x%F0%9F%94%91y'), 1, 2)).toEqual([1, 13]);
  });

  it('undoes any mix of escape styles, character by character, and maps each unit back (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...'aZ9/+=:&<>"\'\\%_- ', '秘', '🔑', 'é'), { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(STYLES.length), { minLength: 1, maxLength: 8 }),
        (chars, choice) => {
          const text = escapedPerCharacter(chars.join(''), choice);
          const view = decodeOnce(text);
          expect(view.text).toBe(chars.join(''));
          for (let k = 0; k < view.text.length; k++) {
            const piece = text.slice(...sourceRange(view, k, k + 1));
            // The piece decodes to the character this unit belongs to (a surrogate pair comes from one escape).
            expect(decodeOnce(piece).text).toContain(view.text.charAt(k));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws and never grows, whatever the text (property)', () => {
    // Escape-like pieces (complete, cut, invalid) among any UTF-16 units, lone surrogates included.
    const unit = fc.oneof(
      fc.constantFrom(...'\\&%;#xXu/', '&amp;', '&#', '&#x', '%E7%A7', '%C0%AF', '%F0%9F%94%91', '\\u00', '\\uD83D', '&#1114112;'),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    );
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 120 }).map((units) => units.join('')),
        (text) => {
          const view = decodeOnce(text);
          expect(view.text.length).toBeLessThanOrEqual(text.length);
          expect(view.starts.length).toBe(view.text.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('decodedViews', () => {
  it('undoes escapes inside escapes, up to three levels, each mapped back to the text itself', () => {
    const text = 'k=%26amp%3B%2347%3B and \\\\u002f';
    const views = decodedViews(text);
    expect(views.map((v) => v.text)).toEqual(['k=&amp;#47; and \\u002f', 'k=&#47; and /', 'k=/ and /']);
    const last = views.at(-1);
    if (!last) throw new Error('no view');
    expect(text.slice(...sourceRange(last, 2, 3))).toBe('%26amp%3B%2347%3B');
    expect(text.slice(...sourceRange(last, 8, 9))).toBe('\\\\u002f');
  });

  it('costs nothing on text without an escape', () => {
    expect(decodedViews('plain text, no escapes at all')).toEqual([]);
  });
});
