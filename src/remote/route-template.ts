/**
 * The route of a request path for telemetry (`url.template`, issue 45): the route words of the two
 * APIs kept, every other segment replaced by `{id}`. The words are an explicit allow-list, not a
 * shape: an id, organisation or service id, or a name in a path (`prod`, `my-dashboard`, `v3`) is
 * `{id}` whatever it looks like, and a route word of any case (`defaultUserRole`) is kept. Only
 * the path is ever given here: a query string, fragment, header or body never reaches a span.
 *
 * An id spelled exactly like a route word (a pipe named `state`, an organisation `v1`) is kept:
 * from the path alone it cannot be told from the route, and what it shows is a public route word.
 */

/**
 * Every literal segment of a path obsync sends (src/remote, the kinds' routes) or the sandbox
 * serves: selfhosted-api §1.1 (HyperDX `/api/v2`), hosted-api §2-4 (`/v1/organizations/…`, the
 * ClickStack and ClickPipes roots under a service — the default `paths.*` and the sandbox's
 * alternatives — and the API keys). A hosted target's `paths.*` spelled otherwise is shown as `{id}`.
 * Lower-case here; a segment is compared lower-cased (the self-hosted server ignores case).
 */
const ROUTE_WORDS: ReadonlySet<string> = new Set([
  // roots and versions
  'api',
  'v1',
  'v2',
  'organizations',
  'services',
  'clickstack',
  'observability',
  'clickpipes',
  'pipes',
  // observability collections and their calls
  'dashboards',
  'validate',
  'alerts',
  'sources',
  'webhooks',
  'saved-searches',
  'connections',
  'charts',
  'series',
  'search',
  // access (self-hosted team API, ClickStack with RBAC; hosted organisation roles)
  'team',
  'members',
  'member',
  'invitation',
  'invitations',
  'role',
  'roles',
  'defaultuserrole',
  // hosted service, pipes and keys
  'state',
  'scaling',
  'settings',
  'context',
  'schemadiscovery',
  'clickpipescdcscaling',
  'clickpipessshkeyresources',
  'pipessshkeyresources',
  'keys',
]);

/** Whether a path segment is one of the APIs' route words (what `routeTemplate` keeps). */
export function isRouteWord(segment: string): boolean {
  return ROUTE_WORDS.has(segment.toLowerCase());
}

export function routeTemplate(path: string): string {
  const cut = path.search(/[?#]/);
  const bare = cut < 0 ? path : path.slice(0, cut);
  // An empty segment (the leading slash, `…/clickpipes/`) holds nothing and stays empty.
  return bare
    .split('/')
    .map((segment) => (segment === '' || isRouteWord(segment) ? segment : '{id}'))
    .join('/');
}
