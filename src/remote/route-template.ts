/**
 * The route of a request path for telemetry (`url.template`, issue 45): the literal words of the
 * API's routes kept, every other segment (an id, an organisation or service, a name) replaced by
 * `{id}`. Only the path is ever given here: a query string, header or body never reaches a span.
 */

/** A route's own word (`dashboards`, `clickpipes`, `settings`, `v1`): lower-case letters in words, or an API version. */
const LITERAL = /^(?:[a-z]+(?:[-_][a-z]+)*|v\d{1,2})$/;

export function routeTemplate(path: string): string {
  const cut = path.search(/[?#]/);
  const bare = cut < 0 ? path : path.slice(0, cut);
  return bare
    .split('/')
    .map((segment, i) => (i === 0 && segment === '' ? '' : LITERAL.test(segment) ? segment : '{id}'))
    .join('/');
}
