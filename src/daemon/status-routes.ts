/**
 * The status routes of the daemon's HTTP server (issue 25): `/` and `/targets/NAME` (HTML), the
 * pictures of a target's last plan at `/targets/NAME/previews/FILE.svg` (issue 42),
 * `/api/status`, `/api/events` and `/api/events/stream`, and the page's two static files. Read
 * only, rendered from memory (never a request to the service). With a status token, `/` and
 * `/api/*` need `Authorization: Bearer <token>`, compared in constant time; the probes
 * (/livez, /readyz, /metrics) never do. Every response forbids loading anything from another host.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Secret } from '../core/secret.js';
import type { EventBus } from '../events/bus.js';
import type { StatusDocument } from '../events/status-model.js';
import { STATUS_CSS, STATUS_JS } from '../render/status-assets.js';
import { renderStatusPage, renderTargetPage, type TargetDetail } from '../render/status-page.js';
import type { EventStream } from './sse.js';
import { MAX_LOGIN_BODY, readForm, StatusSessions } from './status-session.js';
import { asset, html, json, loginPage, NO_STORE, redirect, SECURITY_HEADERS, svg } from './status-replies.js';

export interface StatusSource {
  status(): StatusDocument;
  target(name: string): TargetDetail | undefined;
  /** An SVG of the target's last plan, by file name. */
  preview(name: string, file: string): string | undefined;
}

export interface StatusRoutesOptions {
  source: StatusSource;
  bus: EventBus;
  stream: EventStream;
  /** When set, `/` and `/api/*` need it as a bearer token. */
  token?: Secret | undefined;
  now?: () => Date;
}

export type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;

/** Answers the status routes; false for any other path (the health server goes on). */
export function statusRoutes(opts: StatusRoutesOptions): Route {
  const digest = opts.token ? sha256(opts.token.reveal()) : undefined;
  const sessions = opts.token ? new StatusSessions(opts.token) : undefined;
  const now = () => opts.now?.() ?? new Date();
  return (req, res, url) => {
    const path = url.pathname;
    if (path === '/static/status.css') return asset(res, 'text/css; charset=utf-8', STATUS_CSS);
    if (path === '/static/status.js') return asset(res, 'text/javascript; charset=utf-8', STATUS_JS);
    if (path === '/login') return login(req, res, url, digest && sessions ? { digest, sessions, now: now() } : undefined);
    const page = path === '/' || path.startsWith('/targets/');
    if (!page && !path.startsWith('/api/')) return false;
    if (digest && !authorized(req, digest) && !sessions?.valid(req, now())) {
      if (page && acceptsHtml(req)) return loginPage(res, 401, { next: path, failed: false });
      res
        .writeHead(401, {
          ...SECURITY_HEADERS,
          ...NO_STORE,
          'content-type': 'application/json',
          'www-authenticate': 'Bearer realm="obsync"',
        })
        .end(
          `${JSON.stringify({
            error:
              'this status page needs Authorization: Bearer <status token> (OBSYNC_STATUS_TOKEN or statusToken), ' +
              'or a browser session from /login',
          })}\n`,
        );
      return true;
    }
    const partial = url.searchParams.get('partial') === '1';
    if (path === '/') return html(res, renderStatusPage(opts.source.status(), { partial, now: now() }));
    const picture = PICTURE_PATH.exec(path);
    if (picture) return preview(res, opts.source, picture[1] ?? '', picture[2] ?? '');
    if (path.startsWith('/targets/')) {
      const name = decodeSegment(path.slice('/targets/'.length));
      const detail = name === undefined ? undefined : opts.source.target(name);
      if (!detail) return json(res, 404, { error: `no target '${name ?? path}' in this daemon` });
      const doc = opts.source.status();
      return html(res, renderTargetPage(detail, doc, { partial, now: now() }));
    }
    if (path === '/api/status') return json(res, 200, opts.source.status());
    if (path === '/api/events') return events(res, url, opts);
    if (path === '/api/events/stream') {
      const target = url.searchParams.get('target') ?? undefined;
      if (target !== undefined && !known(opts, target)) return json(res, 404, { error: `no target '${target}' in this daemon` });
      opts.stream.accept(req, res, target, SECURITY_HEADERS);
      return true;
    }
    return json(res, 404, { error: `no such route: ${path}` });
  };
}

/** `/targets/NAME/previews/FILE.svg`: a picture of the target's last plan (file names as src/render/preview/dashboard.ts makes them). */
const PICTURE_PATH = /^\/targets\/([^/]+)\/previews\/([a-z0-9-]+\.svg)$/;

function preview(res: ServerResponse, source: StatusSource, segment: string, file: string): boolean {
  const name = decodeSegment(segment);
  const body = name === undefined ? undefined : source.preview(name, file);
  if (body === undefined) return json(res, 404, { error: `no picture '${file}' in the last plan of target '${name ?? segment}'` });
  return svg(res, body);
}

/** `GET /api/events?target=NAME&since=SEQ|ISO-TIME`: the kept events, oldest first, and the cursor for the next call. */
function events(res: ServerResponse, url: URL, opts: StatusRoutesOptions): boolean {
  const target = url.searchParams.get('target') ?? undefined;
  if (target !== undefined && !known(opts, target)) return json(res, 404, { error: `no target '${target}' in this daemon` });
  const raw = url.searchParams.get('since');
  let since: number | Date | undefined;
  if (raw !== null) {
    since = /^\d+$/.test(raw) ? Number(raw) : new Date(raw);
    if (typeof since !== 'number' && Number.isNaN(since.getTime()))
      return json(res, 400, { error: `since '${raw}' is neither an event number nor a time (e.g. 42 or 2026-11-26T12:00:00Z)` });
  }
  return json(res, 200, { events: opts.bus.list({ target, since }), next: opts.bus.lastSeq });
}

/**
 * `GET /login`: the form; `POST /login` (the form's body): the token, checked as the bearer token
 * is; right, a session cookie and on to the page asked for; wrong, the form again (401). Without
 * a status token there is nothing to sign in to.
 */
function login(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  auth: { digest: Buffer; sessions: StatusSessions; now: Date } | undefined,
): boolean {
  if (!auth) return redirect(res, '/');
  if (req.method !== 'POST') return loginPage(res, 200, { next: pagePath(url.searchParams.get('next')), failed: false });
  readForm(req, MAX_LOGIN_BODY).then(
    (form) => {
      if (form === null) return json(res, 413, { error: `a sign-in form has at most ${MAX_LOGIN_BODY} bytes` });
      const next = pagePath(form.get('next'));
      const token = form.get('token') ?? '';
      if (!timingSafeEqual(sha256(token), auth.digest)) return loginPage(res, 401, { next, failed: true });
      const secure = req.headers['x-forwarded-proto'] === 'https';
      return redirect(res, next, { 'set-cookie': auth.sessions.issue(auth.now, secure) });
    },
    () => res.destroy(),
  );
  return true;
}

/** Where a sign-in may lead: a page of this daemon (`/`, `/targets/NAME`), nothing else (no other host). */
function pagePath(raw: string | null): string {
  return raw !== null && /^\/(targets\/[\w.~%-]+)?$/.test(raw) ? raw : '/';
}

function acceptsHtml(req: IncomingMessage): boolean {
  return /\btext\/html\b/.test(req.headers.accept ?? '');
}

function known(opts: StatusRoutesOptions, target: string): boolean {
  return opts.source.status().targets.some((t) => t.name === target);
}

function authorized(req: IncomingMessage, digest: Buffer): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
  // Digests of equal length: the comparison takes the same time whatever the token sent.
  return match?.[1] !== undefined && timingSafeEqual(sha256(match[1]), digest);
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function decodeSegment(segment: string): string | undefined {
  try {
    const name = decodeURIComponent(segment);
    return name === '' || name.includes('/') ? undefined : name;
  } catch {
    return undefined;
  }
}
