/** The replies of the status routes: each with the security headers; pages and documents pass the one scrubber. */
import type { ServerResponse } from 'node:http';
import { scrub, scrubDeep } from '../core/scrub.js';
import { renderLoginPage } from '../render/status-login.js';

/** Nothing from another host, no framing, no inline code: the page's own stylesheet and script only. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export const NO_STORE = { 'cache-control': 'no-store' };

/**
 * A picture's policy: an SVG served by this daemon runs no script and loads nothing, shown in an
 * `<img>` or opened on its own (`sandbox`: no script, an opaque origin). Its own inline styles apply.
 */
export const PICTURE_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'none'; frame-ancestors 'none'; sandbox";

/** The sign-in form: its own policy lets it post to this daemon (the pages post nowhere). */
export function loginPage(res: ServerResponse, status: number, page: { next: string; failed: boolean }): boolean {
  const csp = SECURITY_HEADERS['content-security-policy']?.replace("form-action 'none'", "form-action 'self'") ?? '';
  res
    .writeHead(status, {
      ...SECURITY_HEADERS,
      ...NO_STORE,
      'content-security-policy': csp,
      'content-type': 'text/html; charset=utf-8',
      ...(status === 401 ? { 'www-authenticate': 'Bearer realm="obsync"' } : {}),
    })
    .end(renderLoginPage(page));
  return true;
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string> = {}): boolean {
  res.writeHead(303, { ...SECURITY_HEADERS, ...NO_STORE, location, ...headers }).end();
  return true;
}

export function asset(res: ServerResponse, type: string, body: string): boolean {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'max-age=300' }).end(body);
  return true;
}

/** Pages and documents pass the one scrubber on their way out, whatever they were built from. */
export function html(res: ServerResponse, body: string): boolean {
  res.writeHead(200, { ...SECURITY_HEADERS, ...NO_STORE, 'content-type': 'text/html; charset=utf-8' }).end(scrub(body));
  return true;
}

/** A picture of the last plan (already scrubbed when drawn; scrubbed again with the secrets in play now, as the pages are). */
export function svg(res: ServerResponse, body: string): boolean {
  res
    .writeHead(200, { ...SECURITY_HEADERS, ...NO_STORE, 'content-security-policy': PICTURE_CSP, 'content-type': 'image/svg+xml' })
    .end(scrub(body));
  return true;
}

export function json(res: ServerResponse, status: number, body: unknown): boolean {
  res
    .writeHead(status, { ...SECURITY_HEADERS, ...NO_STORE, 'content-type': 'application/json' })
    .end(`${JSON.stringify(scrubDeep(body))}\n`);
  return true;
}
