/** The self-hosted server's conditional GETs, as Express answers them by default (its `etag` and `fresh` packages). */
import { describe, expect, it } from 'vitest';
import { conditionalReply, weakEtag } from './conditional.js';
import { json } from './respond.js';

describe('conditional GETs (self-hosted, Express defaults)', () => {
  it("makes Express's weak ETag: the body's length in hex and the first 27 characters of its SHA-1 in base64", () => {
    // The values the `etag` package documents and tests (there as strong tags).
    expect(weakEtag('beep boop')).toBe('W/"9-fINXV39R1PCo05OqGqr7KIY9lCE"');
    expect(weakEtag('')).toBe('W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"');
    // The length is of the UTF-8 bytes, not of the characters.
    expect(weakEtag('é')).toMatch(/^W\/"2-/);
  });

  it('puts the ETag on a successful GET, and answers 304 without a body to a request naming it', () => {
    const reply = json(200, { data: [{ id: 'a' }], meta: { total: 1 } }, { 'x-total-count': '1' });
    const first = conditionalReply('GET', undefined, reply);
    const etag = first.headers.etag;
    expect(etag).toBe(weakEtag(reply.body));
    expect(first.body).toBe(reply.body);
    const again = conditionalReply('GET', etag, reply);
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers).toEqual({ 'x-total-count': '1', etag });
  });

  it('compares weakly, matches any tag of a list and `*`, and answers in full to a tag that no longer matches', () => {
    const reply = json(200, { data: [] });
    const etag = weakEtag(reply.body);
    expect(conditionalReply('GET', etag.slice(2), reply).status).toBe(304);
    expect(conditionalReply('GET', `"x", ${etag}`, reply).status).toBe(304);
    expect(conditionalReply('GET', '*', reply).status).toBe(304);
    const changed = conditionalReply('GET', etag, json(200, { data: [{ id: 'b' }] }));
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('leaves writes and errors as they are', () => {
    const created = json(200, { data: { id: 'a' } });
    expect(conditionalReply('POST', weakEtag(created.body), created)).toBe(created);
    const missing = json(404, { message: 'not found' });
    expect(conditionalReply('GET', weakEtag(missing.body), missing)).toBe(missing);
  });
});
