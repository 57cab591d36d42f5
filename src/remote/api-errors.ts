/**
 * How an API answer that is not what was asked reads as an error: an error status (the envelope's
 * message), a redirect, a web page instead of JSON, a body of the wrong shape, inconsistent paging.
 */
import { ApiError, requestLabel } from '../core/errors.js';
import { scrub } from '../core/scrub.js';
import type { Envelope } from './envelope.js';
import type { PagingInconsistent } from './paging.js';
import type { RequestInit, Response } from './transport-types.js';

export function responseError(init: RequestInit, res: Response, host: string | undefined, envelope: Envelope): ApiError {
  if (res.status >= 300 && res.status < 400) return redirectError(init, res, host);
  // Scrubbed before the envelope cuts an excerpt from it: a cut secret would no longer match.
  const page = htmlPage(res);
  const { message, requestId } = page ? { message: page, requestId: undefined } : envelope.describe({ ...res, text: scrub(res.text) });
  return new ApiError({
    method: init.method,
    path: init.path,
    host,
    status: res.status,
    retryable: res.status === 429 || res.status >= 500,
    bodyExcerpt: message,
    ...(requestId ? { requestId } : {}),
    ...(res.status === 401
      ? { hint: 'the credentials were refused: check the target credentials (OBSYNC_* environment or obsync.yaml)' }
      : {}),
  });
}

export function invalidBodyError(init: RequestInit, res: Response, host: string | undefined, what: string): ApiError {
  const page = htmlPage(res);
  if (page)
    return new ApiError({
      method: init.method,
      path: init.path,
      host,
      status: res.status,
      retryable: false,
      bodyExcerpt: page,
      code: 'API_HTML',
      message:
        `${requestLabel({ ...init, host })}: the server answered HTTP ${res.status} with ${page}, not the ` +
        `API's JSON — probably not the API`,
      hint: 'check the target baseUrl (the API origin, not a web console or a login page in front of it) and, hosted, its paths',
    });
  return new ApiError({
    method: init.method,
    path: init.path,
    host,
    status: res.status,
    retryable: false,
    bodyExcerpt: res.text,
    code: 'API_RESPONSE',
    message: `${requestLabel({ ...init, host })}: the service answered with an unexpected body (${what})`,
    hint: 'is the target baseUrl / variant right?',
  });
}

export function pagingError(init: RequestInit, host: string | undefined, err: PagingInconsistent): ApiError {
  return new ApiError({
    method: init.method,
    path: init.path,
    host,
    status: 200,
    retryable: false,
    code: 'API_PAGING',
    message:
      `${requestLabel({ ...init, host })}: the service's paging is inconsistent: ${err.message}; obsync ` +
      `does not plan from a partial list`,
    hint:
      'a partial list would make objects look deleted (duplicates, or a prune taking along what it never ' +
      'saw): check the service, or a proxy or cache in front of it, and run again',
    cause: err,
  });
}

/**
 * A 3xx: obsync does not follow redirects for API calls (a redirect would carry the credentials to
 * wherever it points, and a POST would not survive it), so it says where the server pointed: only
 * origin and path, never the query (a sign-in redirect may carry tokens there).
 */
function redirectError(init: RequestInit, res: Response, host: string | undefined): ApiError {
  const raw = res.headers.location;
  const location = Array.isArray(raw) ? raw[0] : raw;
  let where = 'no Location header';
  if (location !== undefined) {
    try {
      const url = new URL(location, 'http://relative.invalid');
      where = url.origin === 'http://relative.invalid' ? url.pathname : `${url.origin}${url.pathname}`;
    } catch {
      where = 'an unreadable Location';
    }
  }
  return new ApiError({
    method: init.method,
    path: init.path,
    ...(host ? { host } : {}),
    status: res.status,
    retryable: false,
    code: 'API_REDIRECT',
    message:
      `${requestLabel({ ...init, host })}: the server answered HTTP ${res.status}, a redirect to ${where}; ` +
      `obsync does not follow redirects for API calls`,
    hint:
      'set the target baseUrl to the address the API really answers on (often https:// instead of http://, ' +
      'or without a path prefix); a redirect to a sign-in page means something in front of the API wants a ' +
      'browser login',
  });
}

/** `an HTML page ("Sign in")` when the body is a web page rather than the API's JSON; undefined otherwise. */
export function htmlPage(res: Response): string | undefined {
  const type = res.headers['content-type'];
  const html =
    /text\/html/i.test(Array.isArray(type) ? type.join(',') : (type ?? '')) || /^\s*<(!doctype html|html|head|body)\b/i.test(res.text);
  if (!html) return undefined;
  const title = /<title[^>]*>([^<]{0,200})<\/title>/i.exec(res.text)?.[1]?.trim().replace(/\s+/g, ' ');
  return title ? `an HTML page ("${scrub(title).slice(0, 80)}")` : 'an HTML page';
}
