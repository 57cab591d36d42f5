/**
 * What a schema says about a field of a document, by path: whether it is sensitive (marked
 * `.meta({sensitive: true})` in the schema, read through src/kinds/sensitive.ts) and which values
 * it takes. Interpolation uses it to refuse credentials outside sensitive fields and to type a
 * substituted value; diagnostics use it never to print a value at a sensitive path.
 */
import type * as z from 'zod';
import { sensitivePaths, type SensitivePath } from '../kinds/sensitive.js';
import type { FieldInfo } from './interpolate.js';
import { schemasAt } from './schema-walk.js';

const cache = new WeakMap<z.ZodType, readonly SensitivePath[]>();

/** The sensitive paths of a schema (`*` for any item), computed once per schema. */
export function sensitivePathsOf(schema: z.ZodType): readonly SensitivePath[] {
  let paths = cache.get(schema);
  if (!paths) {
    paths = sensitivePaths(schema);
    cache.set(schema, paths);
  }
  return paths;
}

/** Whether `path` is, or is inside, a sensitive field. */
export function isSensitivePath(path: readonly PropertyKey[], patterns: readonly (readonly string[])[]): boolean {
  return patterns.some((pattern) => pattern.length <= path.length && pattern.every((seg, i) => seg === '*' || seg === String(path[i])));
}

/** Field information for documents whose part at `base` (`['spec']`, or `[]` for all) is checked by `schema`. */
export function fieldLookup(
  schema: z.ZodType,
  base: readonly PropertyKey[],
  extraSensitive: readonly SensitivePath[] = [],
): (path: readonly PropertyKey[]) => FieldInfo {
  const patterns = [...sensitivePathsOf(schema), ...extraSensitive];
  return (path) => {
    if (path.length < base.length || base.some((seg, i) => String(path[i]) !== String(seg))) return { sensitive: false };
    const rel = path.slice(base.length);
    const schemas = schemasAt(schema, rel);
    const info: FieldInfo = { sensitive: isSensitivePath(rel, patterns) };
    if (schemas.length > 0) info.accepts = (value) => schemas.some((s) => s.safeParse(value).success);
    return info;
  };
}

/** The string forms of every leaf value at the given paths (objects at a path contribute all their leaves). */
export function valuesAt(value: unknown, patterns: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  const leaves = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
    else if (Array.isArray(v)) v.forEach(leaves);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(leaves);
  };
  const walk = (v: unknown, pattern: readonly string[]): void => {
    const [head, ...rest] = pattern;
    if (head === undefined) return leaves(v);
    if (typeof v !== 'object' || v === null) return;
    const children = head === '*' ? Object.values(v) : [(v as Record<string, unknown>)[head]];
    for (const child of children) walk(child, rest);
  };
  for (const pattern of patterns) walk(value, pattern);
  return out;
}
