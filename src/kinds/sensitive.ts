/**
 * Sensitive fields are marked once in the kind schemas with `.meta({ sensitive: true })`.
 * `sensitivePaths` finds them by walking the schema; `maskSensitive` replaces their values with
 * `(sensitive)` in a copy. Everything that prints a spec goes through these two.
 */
import * as z from 'zod';
import { setOwn } from '../core/json.js';
import { SENSITIVE } from '../core/secret.js';

/**
 * The keyword a sensitive field carries in the editor schema (`obsync schema`): JSON Schema's own
 * `writeOnly` ("never present when the instance is retrieved from the owning authority"; a
 * password is its example), which every validator knows. An `x-` extension keyword is refused by
 * ajv's strict mode unless each user registers it, and draft-07 has no vocabulary to declare it.
 */
export const SENSITIVE_KEYWORD = 'writeOnly';

/** A path into a spec: keys, with `*` for every array item / record value. */
export type SensitivePath = string[];

function isMarked(schema: z.ZodType): boolean {
  const meta = schema.meta() as { sensitive?: unknown } | undefined;
  return meta?.sensitive === true;
}

/** The schemas a wrapper (optional, default, pipe, lazy, ...) stands for; [] for leaves. */
function children(schema: z.ZodType): { key?: string; schema: z.ZodType }[] {
  if (schema instanceof z.ZodObject)
    return Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, s]) => ({ key, schema: s }));
  if (schema instanceof z.ZodArray) return [{ key: '*', schema: schema.element as z.ZodType }];
  if (schema instanceof z.ZodRecord) return [{ key: '*', schema: schema.valueType as z.ZodType }];
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).map((s) => ({ schema: s }));
  if (schema instanceof z.ZodPipe) return [{ schema: schema.in as z.ZodType }];
  if (schema instanceof z.ZodLazy) return [{ schema: schema.unwrap() as z.ZodType }];
  const inner = (schema._zod.def as { innerType?: z.ZodType }).innerType;
  return inner ? [{ schema: inner }] : [];
}

export function sensitivePaths(schema: z.ZodType): SensitivePath[] {
  const found = new Map<string, SensitivePath>();
  const seen = new Set<z.ZodType>();
  const walk = (s: z.ZodType, path: SensitivePath): void => {
    if (isMarked(s)) {
      found.set(path.join('\u0000'), path);
      return;
    }
    if (seen.has(s)) return; // recursive schemas
    seen.add(s);
    for (const child of children(s)) walk(child.schema, child.key === undefined ? path : [...path, child.key]);
    seen.delete(s);
  };
  walk(schema, []);
  return [...found.values()];
}

function maskAt(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return value === undefined ? value : SENSITIVE;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return head === '*' ? value.map((v: unknown) => maskAt(v, rest)) : value;
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  const keys = head === '*' ? Object.keys(obj) : head !== undefined && Object.hasOwn(obj, head) ? [head] : [];
  if (keys.length === 0) return value;
  const out: Record<string, unknown> = { ...obj };
  for (const k of keys) setOwn(out, k, maskAt(obj[k], rest));
  return out;
}

/** A copy of `value` with every sensitive value replaced by `(sensitive)`; the input is not modified. */
export function maskSensitive<T>(value: T, paths: readonly SensitivePath[]): T {
  let out: unknown = value;
  for (const path of paths) out = maskAt(out, path);
  return out as T;
}
