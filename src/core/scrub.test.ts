import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { registerSecret, Scrubber, SENSITIVE } from './scrub.js';
import { Secret } from './secret.js';

describe('Scrubber', () => {
  const secret = 'pg"pa\\ss/w+rd 94127';

  it('masks a value in any text, whatever surrounds it', () => {
    const s = new Scrubber();
    s.register(secret);
    expect(s.scrub(`x=${secret}; again:${secret}!`)).toBe(`x=${SENSITIVE}; again:${SENSITIVE}!`);
  });

  it('masks its JSON-escaped (once and twice), URL-encoded and base64 forms', () => {
    const s = new Scrubber();
    s.register(secret);
    const once = JSON.stringify({ password: secret });
    const twice = JSON.stringify({ error: `bad body ${once}` });
    for (const text of [once, twice, `?p=${encodeURIComponent(secret)}`, `p=${encodeURIComponent(secret).replace(/%20/g, '+')}`]) {
      expect(s.scrub(text)).not.toContain('94127');
    }
    // base64 at every alignment: the Basic token of `id:secret` and of longer prefixes.
    for (const prefix of ['', 'a', 'ab', 'key-id:']) {
      const token = Buffer.from(`${prefix}${secret}`).toString('base64');
      expect(s.scrub(`Basic ${token}`)).toContain(SENSITIVE);
      expect(s.scrub(`Basic ${token}`)).not.toContain(token);
    }
  });

  it('masks the password of a URL with credentials, as written and decoded', () => {
    const s = new Scrubber();
    s.register('postgres://obsync:p%40ss-w0rd-x@db.internal:5432/obsync');
    expect(s.scrub('connect failed: password p@ss-w0rd-x refused')).toBe(`connect failed: password ${SENSITIVE} refused`);
    expect(s.scrub('postgres://obsync:p%40ss-w0rd-x@other')).not.toContain('w0rd');
  });

  it('ignores values too short to mask safely and leaves other text alone', () => {
    const s = new Scrubber();
    s.register('abc');
    s.register('');
    expect(s.size).toBe(0);
    expect(s.scrub('abc def')).toBe('abc def');
  });

  it('learns every Secret as it is created', () => {
    const value = 'created-as-a-secret-4711';
    void new Secret(value);
    expect(new ApiError({ method: 'GET', path: '/x', status: 500, retryable: true, bodyExcerpt: `echo ${value}` }).message).not.toContain(
      value,
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
});
