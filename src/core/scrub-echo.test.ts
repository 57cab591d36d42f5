/**
 * The scrubber against secrets echoed in part or escaped (issue 50 item 1, issue 53 item 2): each
 * class as a property over random secret shapes and random echo transforms.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  around,
  basic,
  escapedPerCharacter,
  escapedWith,
  percentEncoded,
  secretShapes,
  STYLES,
  type EscapeStyle,
} from '../../test/support/echoes.js';
import { FRAGMENT_MIN, Scrubber, SENSITIVE, WHOLE_WORD_BELOW } from './scrub.js';
import { decodedViews } from './unescape.js';

const scrubberOf = (...values: string[]) => {
  const s = new Scrubber();
  for (const v of values) s.register(v);
  return s;
};

/** Whether `text`, as written or with its escapes undone (any level), still shows `secret`. */
function shows(text: string, secret: string): boolean {
  return text.includes(secret) || decodedViews(text).some((v) => v.text.includes(secret));
}

const style = fc.constantFrom(...STYLES);
const tokens = fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{16,48}$/), fc.stringMatching(/^[A-Za-z0-9_+/-]{16,40}$/));

describe('a secret escaped the way a server escapes it (issue 53 item 2)', () => {
  it(
    'is masked whatever mix of JSON (\\/, \\u0026), JavaScript, HTML and percent escapes writes it, character by character ' + '(property)',
    () => {
      fc.assert(
        fc.property(
          secretShapes,
          fc.array(fc.nat(STYLES.length), { minLength: 1, maxLength: 6 }),
          around,
          around,
          (secret, choice, a, b) => {
            const out = scrubberOf(secret).scrub(`${a}${escapedPerCharacter(secret, choice)}${b}`);
            expect(out).toContain(SENSITIVE);
            expect(shows(out, secret)).toBe(false);
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('is masked under escapes nested in escapes, up to three deep (property)', () => {
    fc.assert(
      fc.property(secretShapes, fc.array(style, { minLength: 1, maxLength: 3 }), around, (secret, styles, a) => {
        const echo = styles.reduce((text, s: EscapeStyle) => escapedWith(text, s), secret);
        const out = scrubberOf(secret).scrub(`error:${a}${echo}${a}`);
        expect(shows(out, secret)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('an echoed Authorization: Basic …\\/… gives away neither the key id nor the secret, in any style (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9-]{6,20}$/), secretShapes, style, (id, secret, s) => {
        // What obsync registers for a hosted target: the secret (a Secret) and the Basic token it sends.
        const scrubber = scrubberOf(secret, basic(id, secret));
        const token = basic(id, secret);
        const echoes = [
          JSON.stringify({ headers: { authorization: `Basic ${token}` } }).replace(/\//g, '\\/'),
          `auth=Basic ${escapedWith(token, s)};`,
          `<p>Authorization: Basic ${escapedWith(token, 'HTML named')}</p>`,
        ];
        for (const echo of echoes) {
          const out = scrubber.scrub(echo);
          expect(shows(out, token), echo).toBe(false);
          expect(shows(out, token.slice(0, 8)), echo).toBe(false);
          expect(shows(out, secret), echo).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an echoed Bearer key holding `/` never appears whole (PHP, Java, Go, HTML)', () => {
    const key = 'sh-key/with+slash/Q7x9==';
    const scrubber = scrubberOf(key);
    for (const s of STYLES) {
      const out = scrubber.scrub(JSON.stringify({ error: `bad token: Bearer ${escapedWith(key, s)}` }));
      expect(shows(out, key), s).toBe(false);
      expect(out, s).toMatch(/Bearer \(sensitive\)/);
    }
  });

  it('fully percent-encoded, every byte, in upper, lower and mixed case (property)', () => {
    fc.assert(
      fc.property(secretShapes, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), around, (secret, cases, a) => {
        const echo = percentEncoded(secret, cases);
        const out = scrubberOf(secret).scrub(`GET /x?q=${echo}${a}`);
        expect(out).not.toContain(echo);
        expect(shows(out, secret)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('a secret echoed in part (issue 50 item 1)', () => {
  it(`masks a prefix or a suffix of ${WHOLE_WORD_BELOW} units or more anywhere, escaped or not (property)`, () => {
    fc.assert(
      fc.property(
        tokens,
        fc.nat(),
        fc.boolean(),
        fc.constantFrom(undefined, ...STYLES),
        fc.constantFrom('k=%s…', '"%s****"', 'x%sy', '****%s.', '%s'),
        (secret, n, fromStart, s, frame) => {
          const length = WHOLE_WORD_BELOW + (n % (secret.length - WHOLE_WORD_BELOW));
          const part = fromStart ? secret.slice(0, length) : secret.slice(-length);
          const echo = s === undefined ? part : escapedWith(part, s);
          const out = scrubberOf(secret).scrub(frame.replace('%s', echo));
          expect(shows(out, part)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it(
    `masks a prefix or a suffix of ${FRAGMENT_MIN} to ${WHOLE_WORD_BELOW - 1} units where it stands as a word that looks like a ` +
      `token (property)`,
    () => {
      fc.assert(
        fc.property(
          fc.stringMatching(/^[A-Za-z0-9]{16,32}$/),
          fc.integer({ min: FRAGMENT_MIN, max: WHOLE_WORD_BELOW - 1 }),
          fc.boolean(),
          (secret, length, fromStart) => {
            const part = fromStart ? secret.slice(0, length) : secret.slice(-length);
            fc.pre(/\d/.test(part) || (/[a-z]/.test(part) && /[A-Z]/.test(part)));
            const s = scrubberOf(secret);
            // The cases: a 10-character prefix of an API key, 11 of 16 characters of a header value.
            expect(s.scrub(`key ${part}… refused`)).toBe(`key ${SENSITIVE}… refused`);
            expect(s.scrub(`"${part}*****"`)).toBe(`"${SENSITIVE}*****"`);
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  it('leaves short fragments and words that merely begin like a secret alone', () => {
    const s = scrubberOf('password-9fG2kQ7xLm', 'Bearer Zq81mNx0Pw4r');
    for (const text of ['check the password in state.url', 'a passwords list', 'password-', 'Bearer token missing', 'passwor'])
      expect(s.scrub(text)).toBe(text);
    // 7 units: below the fragment length.
    expect(s.scrub('fG2kQ7x')).toBe('fG2kQ7x');
  });

  it(
    'leaves a fragment of fewer than four different characters alone (an id ending in the zeros a secret ends with), masks a ' +
      'varied one',
    () => {
      const s = scrubberOf('4b1dsandboxsecret0000000000000000000000000');
      const id = 'service 0b0f0000-0000-4000-8000-000000000000';
      expect(s.scrub(id)).toBe(id);
      expect(s.scrub('echo: 4b1dsandboxsec')).toBe(`echo: ${SENSITIVE}`);
      expect(s.scrub('echo: secret0000000000000000000000000')).toBe(`echo: ${SENSITIVE}`);
    },
  );

  it('every long string of a JSON body is a secret of its own, and the body re-serialised compactly is one (property)', () => {
    const leaf = fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{12,32}$/), fc.constantFrom('trigger', 'critical', '{{title}}'));
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), leaf, { minKeys: 1, maxKeys: 6 }), (body) => {
        // As written in a manifest (spaced), echoed by a server that parsed it.
        const s = scrubberOf(JSON.stringify(body, null, 1));
        const compact = JSON.stringify(body);
        const out = s.scrub(`400: invalid body ${compact}`);
        for (const value of Object.values(body)) if (value.length >= WHOLE_WORD_BELOW) expect(out).not.toContain(value);
        expect(out).not.toContain(compact);
        for (const value of Object.values(body))
          expect(s.scrub(`routing key ${value} unknown`)).toBe(
            `routing key ${value.length >= WHOLE_WORD_BELOW ? SENSITIVE : value} unknown`,
          );
      }),
      { numRuns: 200 },
    );
  });

  it('a template body that is no JSON still has its strings masked, and a text body its token-like words', () => {
    const s = scrubberOf('{"routing_key": "R0UT1NGKEY0123456789", "value": {{value}}}', 'please use token Tk3nAbCdEf9 for the on-call');
    expect(s.scrub('no service for R0UT1NGKEY0123456789')).toBe(`no service for ${SENSITIVE}`);
    expect(s.scrub('bad token Tk3nAbCdEf9')).toBe(`bad token ${SENSITIVE}`);
    expect(s.scrub('the on-call please')).toBe('the on-call please');
  });
});

describe('the scrubber under escapes and fragments, whatever the text (fuzz)', () => {
  it('never throws, never shows a long registered secret in any view, and changes no text that holds none (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom('\\/', '\\u0026', '&amp;', '&#47;', '%2F', '%e7%a7%98', '&', '%', '\\'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(tokens, { maxLength: 8 }), fc.array(piece, { maxLength: 60 }), (secrets, pieces) => {
        const s = scrubberOf(...secrets);
        const text = pieces.join('');
        const out = s.scrub(text);
        for (const v of secrets) expect(shows(out, v)).toBe(false);
        if (!secrets.some((v) => shows(text, v.slice(0, FRAGMENT_MIN)) || shows(text, v.slice(-FRAGMENT_MIN)))) expect(out).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
