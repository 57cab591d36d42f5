// The top-level fields a zod schema expression accepts, read from the TypeScript source with the
// compiler API (never by pattern): `z.object({...})` and what `.extend`, `.merge`, `.omit`,
// `.pick`, `z.union`, `z.discriminatedUnion`, `.and` make of it, through identifiers, imports and
// functions that return a schema. Anything else answers null (unresolved), never a guess.
import ts from 'typescript';

const MAX_DEPTH = 24;
const PASS_THROUGH = new Set([
  'refine',
  'superRefine',
  'transform',
  'optional',
  'nullable',
  'partial',
  'required',
  'strict',
  'passthrough',
]);
const MORE_PASS_THROUGH = new Set(['strip', 'describe', 'default', 'catch', 'brand', 'readonly', 'check', 'meta', 'pipe', 'loose']);

/** A parsed module of a source tree: `project.module(path)` answers `{ file, path }` or undefined. */
export function sourceProject(read, resolveImport) {
  const cache = new Map();
  return {
    resolveImport,
    module(path) {
      if (!cache.has(path)) {
        const text = read(path);
        cache.set(path, text === undefined ? undefined : { path, file: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) });
      }
      return cache.get(path);
    },
  };
}

export const nameOf = (name) =>
  ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name) ? name.text : undefined;

function unwrap(expr) {
  let e = expr;
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e))
    e = e.expression;
  return e;
}

/** The declaration of a top-level name of a module: a const's initializer or a function, following imports. */
export function declarationOf(project, mod, name, depth = 0) {
  if (!mod || depth > MAX_DEPTH) return undefined;
  for (const statement of mod.file.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) return { node: d.initializer, mod };
    }
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name) return { node: statement, mod };
    if (ts.isImportDeclaration(statement) && statement.importClause && ts.isStringLiteral(statement.moduleSpecifier)) {
      const target = () => project.module(project.resolveImport(statement.moduleSpecifier.text, mod.path) ?? '');
      const { name: defaultName, namedBindings } = statement.importClause;
      if (defaultName?.text === name) return defaultExport(project, target(), depth + 1);
      if (namedBindings && ts.isNamedImports(namedBindings)) {
        const spec = namedBindings.elements.find((e) => e.name.text === name);
        if (spec) return declarationOf(project, target(), (spec.propertyName ?? spec.name).text, depth + 1);
      }
      if (namedBindings && ts.isNamespaceImport(namedBindings) && namedBindings.name.text === name) return { namespace: target() };
    }
  }
  return undefined;
}

function defaultExport(project, mod, depth) {
  if (!mod) return undefined;
  for (const statement of mod.file.statements)
    if (ts.isExportAssignment(statement) && ts.isIdentifier(statement.expression))
      return declarationOf(project, mod, statement.expression.text, depth);
  return undefined;
}

/** The object a name, or `namespace.name`, refers to. */
export function resolveReference(project, mod, expr) {
  const e = unwrap(expr);
  if (ts.isIdentifier(e)) return declarationOf(project, mod, e.text);
  if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) {
    const ns = declarationOf(project, mod, e.expression.text);
    if (ns?.namespace) return declarationOf(project, ns.namespace, e.name.text);
    // A member of a const object literal (`BASE.withInline`).
    const member = ns?.node && objectMembers(ns.node).find((p) => nameOf(p.name) === e.name.text);
    if (member) return { node: member.initializer, mod: ns.mod };
  }
  return undefined;
}

/** The `key: value` members of an object literal expression, or none. */
function objectMembers(node) {
  const e = unwrap(node);
  return ts.isObjectLiteralExpression(e) ? e.properties.filter((p) => ts.isPropertyAssignment(p) && p.name) : [];
}

/** The keys of an object literal (a zod shape), spreads (`...fields`, `...other.shape`) included; undefined if unreadable. */
function keysOf(project, mod, literal, depth = 0) {
  if (!ts.isObjectLiteralExpression(literal) || depth > MAX_DEPTH) return undefined;
  const keys = [];
  for (const p of literal.properties) {
    if (ts.isSpreadAssignment(p)) {
      const spread = spreadKeys(project, mod, unwrap(p.expression), depth + 1);
      if (!spread) return undefined;
      keys.push(...spread);
    } else if (p.name && nameOf(p.name) !== undefined) keys.push(nameOf(p.name));
  }
  return keys;
}

function spreadKeys(project, mod, e, depth) {
  if (ts.isPropertyAccessExpression(e) && e.name.text === 'shape') {
    const fields = schemaFields(project, mod, e.expression, depth);
    return fields ? [...fields] : undefined;
  }
  const found = resolveReference(project, mod, e);
  return found?.node ? keysOf(project, found.mod, unwrap(found.node), depth) : undefined;
}

/** The expressions a function returns (arrow body or `return` statements, not those of nested functions). */
export function returnedExpressions(fn) {
  if (ts.isArrowFunction(fn) && !ts.isBlock(fn.body)) return [fn.body];
  const out = [];
  const visit = (node) => {
    if (ts.isReturnStatement(node) && node.expression) out.push(node.expression);
    if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
  };
  if (fn.body) ts.forEachChild(fn.body, visit);
  return out;
}

const union = (sets) => (sets.some((s) => s === null) ? null : new Set(sets.flatMap((s) => [...s])));

/** The fields of a schema expression in a module, or null when they cannot be read. */
export function schemaFields(project, mod, expression, depth = 0) {
  if (depth > MAX_DEPTH || !mod) return null;
  const e = unwrap(expression);
  if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) {
    const found = resolveReference(project, mod, e);
    if (found?.node && !ts.isFunctionLike(found.node)) return schemaFields(project, found.mod, found.node, depth + 1);
    return null;
  }
  if (ts.isConditionalExpression(e))
    return union([schemaFields(project, mod, e.whenTrue, depth + 1), schemaFields(project, mod, e.whenFalse, depth + 1)]);
  if (ts.isElementAccessExpression(e)) {
    // `SCHEMAS[mode]`: any member of a const object literal, so the fields of all of them.
    const found = resolveReference(project, mod, e.expression);
    const members = found?.node ? objectMembers(found.node) : [];
    return members.length > 0 ? union(members.map((m) => schemaFields(project, found.mod, m.initializer, depth + 1))) : null;
  }
  if (!ts.isCallExpression(e)) return null;
  const callee = unwrap(e.expression);
  if (ts.isIdentifier(callee)) {
    const fn = declarationOf(project, mod, callee.text);
    if (!fn?.node) return null;
    const fnNode = ts.isFunctionLike(fn.node) ? fn.node : undefined;
    return fnNode ? union(returnedExpressions(fnNode).map((r) => schemaFields(project, fn.mod, r, depth + 1))) : null;
  }
  if (!ts.isPropertyAccessExpression(callee)) return null;
  const method = callee.name.text;
  const receiver = callee.expression;
  const [first] = e.arguments;
  const isZ = ts.isIdentifier(receiver) && receiver.text === 'z';
  if (isZ && ['object', 'strictObject', 'looseObject'].includes(method)) {
    const keys = first ? keysOf(project, mod, unwrap(first)) : [];
    return keys ? new Set(keys) : null;
  }
  if (isZ && ['union', 'discriminatedUnion', 'xor'].includes(method)) {
    const list = unwrap(e.arguments[e.arguments.length - 1] ?? first);
    return list && ts.isArrayLiteralExpression(list) ? union(list.elements.map((m) => schemaFields(project, mod, m, depth + 1))) : null;
  }
  if (isZ && method === 'intersection') return union(e.arguments.map((a) => schemaFields(project, mod, a, depth + 1)));
  if (isZ) return null;
  const base = schemaFields(project, mod, receiver, depth + 1);
  if (base === null) return null;
  if (method === 'extend' || method === 'safeExtend') {
    const added = first ? (keysOf(project, mod, unwrap(first)) ?? [...(schemaFields(project, mod, first, depth + 1) ?? [])]) : [];
    return new Set([...base, ...added]);
  }
  if (method === 'merge' || method === 'and' || method === 'or')
    return union([base, first ? schemaFields(project, mod, first, depth + 1) : null]);
  if (method === 'omit' || method === 'pick') {
    const listed = new Set(first ? (keysOf(project, mod, unwrap(first)) ?? []) : []);
    return new Set([...base].filter((k) => listed.has(k) === (method === 'pick')));
  }
  return PASS_THROUGH.has(method) || MORE_PASS_THROUGH.has(method) ? base : null;
}
