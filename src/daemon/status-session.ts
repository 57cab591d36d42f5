/**
 * The status page in a browser without a proxy (issue 50): a browser cannot send a bearer token by
 * itself, so `/login` takes the token once in a form (a POST body: never in a URL, which stays in
 * history and access logs) and answers with a session cookie — HttpOnly (no script reads it),
 * SameSite=Strict (no other site sends it), for 12 hours. The cookie is not the token: it is its
 * expiry signed with a key derived from the token, so every replica with the same token accepts
 * it, and changing the token ends every session.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Secret } from '../core/secret.js';

export const SESSION_COOKIE = 'obsync_status';
export const SESSION_SECONDS = 12 * 60 * 60;
/** A login form's body: a token and where to go next fit well inside. */
export const MAX_LOGIN_BODY = 4_096;

export class StatusSessions {
  readonly #key: Buffer;

  constructor(token: Secret) {
    this.#key = createHmac('sha256', token.reveal()).update('obsync status session key').digest();
  }

  /** The `Set-Cookie` value of a new session (`Secure` when the page was reached over HTTPS, as a proxy says). */
  issue(now: Date, secure: boolean): string {
    const expires = Math.floor(now.getTime() / 1000) + SESSION_SECONDS;
    const value = `${expires}.${this.#sign(expires)}`;
    return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${SESSION_SECONDS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }

  /** The request carries a session this token signed that has not expired. */
  valid(req: IncomingMessage, now: Date): boolean {
    const value = cookie(req.headers.cookie ?? '', SESSION_COOKIE);
    const match = value === undefined ? null : /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (!match?.[1] || !match[2]) return false;
    const expires = Number(match[1]);
    const expected = Buffer.from(this.#sign(expires));
    const given = Buffer.from(match[2]);
    return given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 > now.getTime();
  }

  #sign(expires: number): string {
    return createHmac('sha256', this.#key).update(`session until ${expires}`).digest('base64url');
  }
}

/** One cookie of a `Cookie` header (the last one of that name). */
function cookie(header: string, name: string): string | undefined {
  let found: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) found = part.slice(eq + 1).trim();
  }
  return found;
}

/** Reads a small form body; null when it is larger than `max` (the rest is not read). */
export function readForm(req: IncomingMessage, max: number): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.once('error', reject);
  });
}
