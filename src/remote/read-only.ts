/**
 * What counts as a read of the service, decided here and nowhere else: a GET, and the POSTs listed
 * below, each of which only queries. Every other request is a write: it passes the run's write
 * fence before it leaves (src/remote/transport.ts), and a read-only command's fence refuses it
 * (core/fence.ts `READ_ONLY`): plan, export, import and a plan-mode daemon send nothing else.
 */

interface ReadOnlyPost {
  /** The request path below the base URL, whole. */
  path: RegExp;
  what: string;
}

/** The POSTs that only read; a new one is added here, with what it queries. */
export const READ_ONLY_POSTS: readonly ReadOnlyPost[] = Object.freeze([
  // selfhosted-api: POST /api/v2/charts/series answers time series and changes nothing (backtests, `obsync query`).
  { path: /^\/api\/v2\/charts\/series$/, what: 'a chart series query' },
  // selfhosted-api: POST /api/v2/search answers raw rows and changes nothing (search walks, search-walk.ts).
  { path: /^\/api\/v2\/search$/, what: 'a raw-row search' },
]);

/** Whether a request only reads the service. */
export function isRead(request: { method: string; path: string }): boolean {
  if (request.method === 'GET') return true;
  return request.method === 'POST' && READ_ONLY_POSTS.some((p) => p.path.test(request.path));
}
