/**
 * The one place request paths are built in src/remote: every value that goes into a path (an
 * organisation, service or object id, a configured path segment, a kind's collection name) is
 * one segment, percent-encoded whole, so it cannot add or remove a segment. A value that is
 * dots only is refused rather than encoded: `..` is a dot segment that a front end resolves
 * away (`…/clickpipes/../state` is the service's own state call), and so is `%2E%2E` to any
 * resolver that decodes unreserved characters first (RFC 3986 §6.2.2.2, the WHATWG URL parser).
 * Ids from the service are held to their form at the edge (core/wire.ts `objectId`); this is the
 * last check before a request leaves, for any value.
 */
import { ObsyncError } from '../core/errors.js';

/** A value that cannot be one path segment: nothing was sent. */
export class PathSegmentError extends ObsyncError {
  override readonly name = 'PathSegmentError';
  constructor(why: string) {
    super('PATH_SEGMENT', `a request path would hold ${why}; nothing was sent`, {
      hint: 'an id or path setting must be a plain name (an id from the service, the organisation and service ids, paths.* in obsync.yaml)',
    });
  }
}

const DOTS = /^\.+$/;
// C0, DEL and C1 controls: a front end may cut a path at one, or log it as a line break.
// eslint-disable-next-line no-control-regex -- the point
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** One path segment, encoded: it cannot add, remove or climb a segment, whatever it holds. */
export function segment(value: string): string {
  if (value === '') throw new PathSegmentError('an empty segment');
  if (DOTS.test(value)) throw new PathSegmentError(`a segment of dots only (${value.length === 1 ? "'.'" : `${value.length} dots`})`);
  if (CONTROL.test(value)) throw new PathSegmentError('a control character');
  // A lone surrogate goes out as U+FFFD (encodeURIComponent would throw on it).
  return encodeURIComponent(value.replace(/\p{Cs}/gu, '\ufffd'));
}

/** `/a/b/c` from segments, each encoded. */
export function apiPath(...segments: readonly string[]): string {
  return segments.map((s) => `/${segment(s)}`).join('');
}

/** A path below one already built: `parent` is kept as it is, each further segment encoded. */
export function below(parent: string, ...segments: readonly string[]): string {
  return parent + apiPath(...segments);
}

/** A path written in the code as `/a/b` (a kind's call path, a collection name), each of its segments encoded; '' is none. */
export function literalPath(path: string): string {
  return apiPath(...path.split('/').filter((s) => s !== ''));
}
