/**
 * Conditional GETs as the self-hosted API server answers them (selfhosted-api §9): Express's
 * defaults — every successful GET JSON response carries a weak ETag made from its body (the
 * `etag` package: `W/"<length in hex>-<SHA-1 in base64, 27 characters>"`), and a GET whose
 * `If-None-Match` names it gets 304 with no body (the `fresh` package: weak comparison, `*`
 * matches anything). Express drops the body's own headers from a 304 and keeps the others. The
 * hosted API documents no ETags: its replies pass unchanged.
 */
import { createHash } from 'node:crypto';
import type { Reply } from './respond.js';

export function weakEtag(body: string): string {
  const bytes = Buffer.from(body);
  const hash = createHash('sha1').update(bytes).digest('base64').slice(0, 27);
  return `W/"${bytes.length.toString(16)}-${hash}"`;
}

/** The reply to a GET with this `If-None-Match` (undefined: none sent): with its ETag, or 304 when it still matches. */
export function conditionalReply(method: string, ifNoneMatch: string | undefined, reply: Reply): Reply {
  if (method !== 'GET' || reply.status < 200 || reply.status >= 300) return reply;
  const etag = weakEtag(reply.body);
  if (ifNoneMatch === undefined || !matches(ifNoneMatch, etag)) return { ...reply, headers: { ...reply.headers, etag } };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.headers)) if (name !== 'content-type') headers[name] = value;
  return { status: 304, headers: { ...headers, etag }, body: '' };
}

/** `fresh`'s test: any listed tag equal to the ETag once a `W/` prefix is dropped from either, or `*`. */
function matches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const bare = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return ifNoneMatch.split(',').some((tag) => bare(tag.trim()) === bare(etag));
}
