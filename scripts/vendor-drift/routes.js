// The routes and body fields of the vendor's express routers (hyperdx packages/api
// routers/external-api/v2) and of the sandbox's self-hosted route tables, read with the
// TypeScript compiler API. A route is `METHOD /api/v2/path` with every parameter written `{}`.
import ts from 'typescript';
import { nameOf, resolveReference, returnedExpressions, schemaFields } from './zod-fields.js';

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export const routeKey = (method, path) => `${method.toUpperCase()} ${path.replace(/:\w+|\{\w+\}/g, '{}').replace(/\/+$/, '') || '/'}`;

function calls(node, out = []) {
  if (ts.isCallExpression(node)) out.push(node);
  ts.forEachChild(node, (child) => {
    calls(child, out);
  });
  return out;
}

const isRouterCall = (call, methods) =>
  ts.isPropertyAccessExpression(call.expression) &&
  ts.isIdentifier(call.expression.expression) &&
  call.expression.expression.text === 'router' &&
  methods.has(call.expression.name.text);

/** `validateRequest({ body: X })` among a route's handlers: X's fields, null if unreadable, undefined if none. */
function validatedBody(project, mod, call) {
  for (const arg of call.arguments) {
    // validateRequest / processRequest({ params, query, body }): whatever the middleware is named.
    if (!ts.isCallExpression(arg)) continue;
    const options = arg.arguments[0];
    if (!options || !ts.isObjectLiteralExpression(options)) continue;
    const body = options.properties.find((p) => p.name && nameOf(p.name) === 'body');
    if (body && ts.isPropertyAssignment(body)) return schemaFields(project, mod, body.initializer);
    if (body && ts.isShorthandPropertyAssignment(body)) return schemaFields(project, mod, body.name);
  }
  return undefined;
}

function routerRoutes(project, mod, prefix) {
  return calls(mod.file)
    .filter((c) => isRouterCall(c, METHODS) && c.arguments[0] && ts.isStringLiteralLike(c.arguments[0]))
    .map((c) => {
      const method = c.expression.name.text.toUpperCase();
      const sub = c.arguments[0].text;
      const fields = WITH_BODY.has(method) ? validatedBody(project, mod, c) : undefined;
      return { key: routeKey(method, `${prefix}${sub === '/' ? '' : sub}`), fields };
    });
}

/** The vendor's v2 routes: those of its index and of every router it mounts with `router.use('/x', …, xRouter)`. */
export function vendorRoutes(project, indexPath, root = '/api/v2') {
  const index = project.module(indexPath);
  if (!index) throw new Error(`the vendor's router index ${indexPath} is not in the snapshot`);
  const out = routerRoutes(project, index, root);
  for (const use of calls(index.file).filter((c) => isRouterCall(c, new Set(['use'])))) {
    const [mount] = use.arguments;
    const routerArg = use.arguments[use.arguments.length - 1];
    if (!mount || !ts.isStringLiteralLike(mount) || !routerArg) continue;
    const found = resolveReference(project, index, routerArg);
    if (found?.mod) out.push(...routerRoutes(project, found.mod, `${root}${mount.text}`));
  }
  return out;
}

/** Whether an identifier `body` (the request body, as the sandbox's domain functions name it) is among a call's arguments. */
const passesBody = (call) => call.arguments.some((a) => (ts.isIdentifier(a) ? a.text === 'body' : calls(a).some(passesBody)));

/** The schemas a sandbox domain function parses the body with: `parseRequest(S, body)`, `S.safeParse(body)`, one call deep. */
function parsedSchemas(project, fn, depth = 0) {
  const out = [];
  const bodyCalls = calls(fn.node).filter(passesBody);
  for (const call of bodyCalls) {
    const callee = call.expression;
    if (ts.isIdentifier(callee) && callee.text === 'parseRequest' && call.arguments[0]) out.push({ expr: call.arguments[0], mod: fn.mod });
    else if (ts.isPropertyAccessExpression(callee) && ['safeParse', 'parse'].includes(callee.name.text))
      out.push({ expr: callee.expression, mod: fn.mod });
  }
  if (out.length > 0 || depth > 0) return out;
  for (const call of bodyCalls) {
    const target = resolveReference(project, fn.mod, call.expression);
    if (target?.node && ts.isFunctionLike(target.node)) out.push(...parsedSchemas(project, target, depth + 1));
  }
  return out;
}

/** The fields the domain method `name` (the sandbox's `c.domain.name(...)`) accepts, or null. */
function domainFields(project, domainIndex, name) {
  const [assignment] = findProperties(domainIndex.file, name);
  if (!assignment || !ts.isFunctionLike(assignment.initializer)) return null;
  const targets = returnedExpressions(assignment.initializer)
    // The call the arrow returns, or each branch of `edition ? a(…) : b(…)`.
    .flatMap((r) => calls(r).filter((c) => c === unwrapped(r) || ts.isConditionalExpression(c.parent)))
    .map((c) => resolveReference(project, domainIndex, c.expression))
    .filter((t) => t?.node && ts.isFunctionLike(t.node));
  const schemas = targets.flatMap((t) => parsedSchemas(project, t));
  if (schemas.length === 0) return null;
  const sets = schemas.map((s) => schemaFields(project, s.mod, s.expr));
  return sets.some((s) => s === null) ? null : new Set(sets.flatMap((s) => [...s]));
}

const unwrapped = (e) => (ts.isParenthesizedExpression(e) ? unwrapped(e.expression) : e);

function findProperties(file, name) {
  const out = [];
  const visit = (node) => {
    if (ts.isPropertyAssignment(node) && nameOf(node.name) === name) out.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** The sandbox's routes from its route tables (`{ method, pattern: p('x'), handle: (c) => … c.domain.name(…) }`). */
export function sandboxRoutes(project, tablePaths, domainIndexPath, root = '/api/v2') {
  const domainIndex = project.module(domainIndexPath);
  const out = [];
  for (const path of tablePaths) {
    const mod = project.module(path);
    if (!mod) throw new Error(`the sandbox's route table ${path} is missing`);
    const visit = (node) => {
      if (ts.isObjectLiteralExpression(node)) {
        const prop = (n) => node.properties.find((p) => p.name && nameOf(p.name) === n && ts.isPropertyAssignment(p))?.initializer;
        const [method, pattern, handle, edition] = [prop('method'), prop('pattern'), prop('handle'), prop('edition')];
        if (method && ts.isStringLiteralLike(method) && pattern && ts.isCallExpression(pattern) && pattern.arguments[0]) {
          const sub = pattern.arguments[0];
          const domainCall = handle ? calls(handle).find((c) => /\.domain\.\w+$/.test(c.expression.getText(mod.file))) : undefined;
          const name = domainCall?.expression.name.text;
          const fields = WITH_BODY.has(method.text) && name && domainIndex ? domainFields(project, domainIndex, name) : undefined;
          const route = { key: routeKey(method.text, `${root}/${ts.isStringLiteralLike(sub) ? sub.text : '?'}`), fields };
          out.push(edition && ts.isStringLiteralLike(edition) ? { ...route, edition: edition.text } : route);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(mod.file);
  }
  return out;
}
