import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from './errors.js';
import { MultiMatcher } from './matcher.js';
import { registerSecret, Scrubber, SENSITIVE } from './scrub.js';
import { Secret } from './secret.js';

const scrubberOf = (...values: string[]) => {
  const s = new Scrubber();
  for (const v of values) s.register(v);
  return s;
};

/** Every form a server or obsync's own output gives `secret`, each inside the text it travels in. */
function echoes(secret: string): Record<string, string> {
  const once = JSON.stringify({ password: secret });
  const base64 = (text: string, url = false) => Buffer.from(text, 'utf8').toString(url ? 'base64url' : 'base64');
  return {
    raw: `value ${secret} echoed`,
    'JSON once': once,
    'JSON twice': JSON.stringify({ error: `bad body ${once}` }),
    'URL-encoded': `?p=${encodeURIComponent(secret)}&x=1`,
    'form-encoded': `p=${encodeURIComponent(secret).replace(/%20/g, '+')}`,
    'upper case': `ECHO ${secret.toUpperCase()} END`,
    'lower case': `echo ${secret.toLowerCase()} end`,
    'hex lower': `0x${Buffer.from(secret, 'utf8').toString('hex')}`,
    'hex upper': `0X${Buffer.from(secret, 'utf8').toString('hex').toUpperCase()}`,
    // Below 7 bytes a value has no base64 core long enough to tell from other base64 at every alignment.
    ...(Buffer.byteLength(secret) >= 7
      ? {
          'base64 (Basic id:secret)': `Authorization: Basic ${base64(`key-id:${secret}`)}`,
          'base64 at offset 1': `t=${base64(`a${secret}`)}`,
          'base64 at offset 2': `t=${base64(`ab${secret}`)}`,
          'base64url at offset 1': `t=${base64(`a${secret}z`, true)}`,
        }
      : {}),
  };
}

/** The leaked part each echo must no longer show. */
function leakOf(secret: string, form: string, text: string): string {
  if (form.startsWith('base64')) return text.slice(text.indexOf(form.includes('Basic') ? 'Basic ' : 't=') + 6);
  if (form.startsWith('hex')) return text.slice(2);
  if (form === 'upper case') return secret.toUpperCase();
  if (form === 'lower case') return secret.toLowerCase();
  if (form.includes('encoded')) return encodeURIComponent(secret);
  return secret;
}

describe('Scrubber', () => {
  const secret = 'pg"pa\\ss/w+rd 94127';

  it('masks a value in any text, whatever surrounds it', () => {
    const s = scrubberOf(secret);
    expect(s.scrub(`x=${secret}; again:${secret}!`)).toBe(`x=${SENSITIVE}; again:${SENSITIVE}!`);
  });

  it('masks every derived form a server echoes: JSON (1×, 2×), URL- and form-encoded, any case, hex, base64 in both alphabets', () => {
    const s = scrubberOf(secret);
    for (const [form, text] of Object.entries(echoes(secret))) {
      const out = s.scrub(text);
      expect(out, form).toContain(SENSITIVE);
      expect(out, form).not.toContain('94127');
      expect(out, form).not.toContain(leakOf(secret, form, text));
    }
  });

  it('masks the password of a URL with credentials, as written and decoded', () => {
    const s = scrubberOf('postgres://obsync:p%40ss-w0rd-x@db.internal:5432/obsync');
    expect(s.scrub('connect failed: password p@ss-w0rd-x refused')).toBe(`connect failed: password ${SENSITIVE} refused`);
    expect(s.scrub('postgres://obsync:p%40ss-w0rd-x@other')).not.toContain('w0rd');
  });

  it('masks the token-like path segments and query values of a secret URL alone, and leaves plain words', () => {
    const s = scrubberOf('https://hooks.example.com/services/T0AB12CD/B0XY34ZW/aBcD3fGh1jKlMn0pQrStUvWx?token=tok-9f8e7d6c&format=json');
    expect(s.scrub('404: no team T0AB12CD')).toBe(`404: no team ${SENSITIVE}`);
    expect(s.scrub('bad hook AbCd3FgH1JkLmN0PqRsTuVwX')).toBe(`bad hook ${SENSITIVE}`);
    expect(s.scrub('token tok-9f8e7d6c expired')).toBe(`token ${SENSITIVE} expired`);
    expect(
      s.scrub('GET HTTPS://HOOKS.EXAMPLE.COM/SERVICES/T0AB12CD/B0XY34ZW/ABCD3FGH1JKLMN0PQRSTUVWX?TOKEN=TOK-9F8E7D6C&FORMAT=JSON'),
    ).toBe(`GET ${SENSITIVE}`);
    expect(s.scrub('services use format json')).toBe('services use format json');
  });

  it('masks a short value only where it stands as a word, never inside words (issue 30)', () => {
    const s = scrubberOf('eade', 'rs-1');
    expect(s.scrub('headers is not supported')).toBe('headers is not supported');
    expect(s.scrub('password eade refused; "eade"; key=EADE.')).toBe(`password ${SENSITIVE} refused; "${SENSITIVE}"; key=${SENSITIVE}.`);
    expect(s.scrub('users-1 and rs-1')).toBe(`users-1 and ${SENSITIVE}`);
  });

  it('masks a long value everywhere, inside words too', () => {
    const s = scrubberOf('longer-secret-value');
    expect(s.scrub('xxlonger-secret-valueyy')).toBe(`xx${SENSITIVE}yy`);
  });

  it('merges overlapping secrets into one mask, so no tail of either shows', () => {
    const s = scrubberOf('abcdefghijklmnop', 'ijklmnopqrstuvwx');
    expect(s.scrub('<abcdefghijklmnopqrstuvwx>')).toBe(`<${SENSITIVE}>`);
  });

  it('ignores values too short to mask safely and leaves other text alone', () => {
    const s = scrubberOf('abc', '');
    expect(s.size).toBe(0);
    expect(s.scrub('abc def')).toBe('abc def');
  });

  it('fails closed and silent: if matching ever threw, the text is withheld, never returned or quoted', () => {
    const s = scrubberOf('value-that-would-be-quoted-1');
    const spy = vi.spyOn(MultiMatcher.prototype, 'ranges').mockImplementation(() => {
      throw new Error('Invalid regular expression: /value-that-would-be-quoted-1/');
    });
    try {
      expect(s.scrub('echo value-that-would-be-quoted-1')).toBe(SENSITIVE);
    } finally {
      spy.mockRestore();
    }
  });

  it('learns every Secret as it is created', () => {
    const value = 'created-as-a-secret-4711';
    void new Secret(value);
    expect(new ApiError({ method: 'GET', path: '/x', status: 500, retryable: true, bodyExcerpt: `echo ${value}` }).message).not.toContain(
      value,
    );
  });
});

describe('Scrubber against hostile secrets (fuzz)', () => {
  const alphabets = {
    ascii: fc.constantFrom(...'abcXYZ019-_:/'),
    cjk: fc.constantFrom(...'秘密鍵値東京語'),
    emoji: fc.constantFrom('😀', '🔑', '👨‍👩‍👧', '🏳️‍🌈'),
    'regex metacharacters': fc.constantFrom(...'.*+?^${}()|[]\\/'),
    mixed: fc.constantFrom('a', 'Z', '9', '秘', '🔑', '$', '(', '\\', '"', ' ', '\u0000', '\u202e'),
  };
  const around = fc.string({ maxLength: 40 });

  for (const [name, unit] of Object.entries(alphabets)) {
    it(`masks every derived form of ${name} secrets of 4 to 2,000 units embedded in random text, and never throws (property)`, () => {
      fc.assert(
        fc.property(fc.array(unit, { minLength: 4, maxLength: 2000 }), around, around, (units, before, after) => {
          const value = units.join('');
          const s = scrubberOf(value);
          for (const [form, text] of Object.entries(echoes(value))) {
            const out = s.scrub(`${before} ${text} ${after}`);
            expect(out, form).toContain(SENSITIVE);
            expect(out, form).not.toContain(leakOf(value, form, text));
          }
        }),
        { numRuns: 40 },
      );
    });
  }

  it.each([4, 11, 12, 1000, 22_000, 50_000, 200_000])(
    'masks a secret of %i units in ASCII, CJK and emoji in every form',
    { timeout: 60_000 },
    (length) => {
      for (const unit of ['k', '秘', '🔑']) {
        const value = `${unit.repeat(Math.max(2, Math.ceil((length - 2) / unit.length)))}$(`;
        const s = scrubberOf(value);
        for (const [form, text] of Object.entries(echoes(value))) {
          const out = s.scrub(`prefix ${text} suffix`);
          expect(out.startsWith('prefix'), form).toBe(true);
          expect(out.includes(leakOf(value, form, text)), `${form} of ${length}`).toBe(false);
        }
      }
    },
  );

  it('scrubs text of any content with many secrets registered without throwing (property)', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 0, maxLength: 300, unit: 'binary' }), { maxLength: 30 }),
        fc.string({ unit: 'binary', maxLength: 3000 }),
        (values, text) => {
          const s = scrubberOf(...values);
          const out = s.scrub(text);
          for (const v of values) if (v.length >= 12) expect(out.includes(v)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('ApiError', () => {
  it('scrubs a server body before cutting its excerpt, so no piece of a secret survives the cut', () => {
    const value = 'cut-in-half-secret-value-8812';
    registerSecret(value);
    const body = `${'x'.repeat(290)}${value}${'y'.repeat(50)}`;
    const err = new ApiError({ method: 'POST', path: '/p', status: 400, retryable: false, bodyExcerpt: body });
    expect(err.bodyExcerpt).not.toContain('cut-in-h');
    expect(err.message).not.toContain('cut-in-h');
  });

  it('survives a 200,000-character secret (a regular expression built from it would throw and quote it)', () => {
    const huge = `${'東'.repeat(100_000)}${'k'.repeat(100_000)}`;
    registerSecret(huge);
    const err = new ApiError({ method: 'POST', path: '/p', status: 400, retryable: false, bodyExcerpt: `echo ${huge}` });
    expect(err.message).toContain(SENSITIVE);
    expect(err.message).not.toContain('東東東');
  });
});

describe('a scrubber set aside (a command run in a test process starts knowing no secret)', () => {
  it('masks nothing while aside, and masks the secrets known before once put back', () => {
    const s = new Scrubber();
    s.register('Password');
    expect(s.scrub('Password of that user')).toBe('(sensitive) of that user');
    const putBack = s.setAside();
    expect(s.scrub('Password of that user')).toBe('Password of that user');
    s.register('hunter2-secret');
    putBack();
    expect(s.scrub('Password and hunter2-secret')).toBe('(sensitive) and hunter2-secret');
  });
});
