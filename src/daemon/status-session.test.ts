import type { IncomingMessage } from 'node:http';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Secret } from '../core/secret.js';
import { StatusSessions } from './status-session.js';

const now = new Date('2026-11-26T12:00:00Z');
const TOKEN = 'status-token-0123456789abcdef';
const withCookie = (cookie: string) => ({ headers: { cookie } }) as unknown as IncomingMessage;
const valueOf = (setCookie: string) => setCookie.split(';')[0] ?? '';

describe('status sessions', () => {
  it('a session opens while it lasts, for the token that signed it only; no change to it opens anything', () => {
    const sessions = new StatusSessions(new Secret(TOKEN));
    const cookie = valueOf(sessions.issue(now, false));
    expect(sessions.valid(withCookie(`theme=dark; ${cookie}`), now)).toBe(true);
    expect(sessions.valid(withCookie(cookie), new Date(now.getTime() + 12 * 3600_000))).toBe(false);
    expect(new StatusSessions(new Secret(`${TOKEN}2`)).valid(withCookie(cookie), now)).toBe(false);
    expect(sessions.valid(withCookie(`obsync_status=${TOKEN}`), now)).toBe(false);
    fc.assert(
      fc.property(fc.nat({ max: cookie.length - 1 }), fc.string({ minLength: 1, maxLength: 3 }), (at, insert) => {
        const changed = `${cookie.slice(0, at)}${insert}${cookie.slice(at + 1)}`;
        fc.pre(changed !== cookie);
        expect(sessions.valid(withCookie(changed), now)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('is Secure when the page was reached over HTTPS', () => {
    expect(new StatusSessions(new Secret(TOKEN)).issue(now, true)).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });
});
