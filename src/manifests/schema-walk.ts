/**
 * Finds the object schema that applies at a path of a value, to list the keys allowed there
 * (for "unknown key 'treshold' — did you mean 'threshold'?"). Unions are narrowed by their
 * discriminator when the value has it, else every object option counts.
 */
import * as z from 'zod';

type Seg = PropertyKey;

function unwrap(schema: z.ZodType): z.ZodType[] {
  if (schema instanceof z.ZodObject) return [schema];
  if (schema instanceof z.ZodPipe) return unwrap(schema.in as z.ZodType);
  if (schema instanceof z.ZodLazy) return unwrap(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap(unwrap);
  const inner = (schema._zod.def as { innerType?: z.ZodType }).innerType;
  return inner ? unwrap(inner) : [schema];
}

/** Object options whose discriminator-like literal fields accept the value's fields. */
function narrow(options: z.ZodType[], value: unknown): z.ZodType[] {
  if (typeof value !== 'object' || value === null) return options;
  const record = value as Record<string, unknown>;
  const fits = options.filter((o) => {
    if (!(o instanceof z.ZodObject)) return true;
    const shape = o.shape as Record<string, z.ZodType>;
    return Object.entries(shape).every(([k, s]) => !isLiteralish(s) || s.safeParse(record[k]).success);
  });
  return fits.length > 0 ? fits : options;
}

function isLiteralish(s: z.ZodType): boolean {
  return unwrap(s).every((x) => x instanceof z.ZodLiteral);
}

function step(schema: z.ZodType, seg: Seg, value: unknown): z.ZodType[] {
  return narrow(unwrap(schema), value).flatMap((s) => {
    if (s instanceof z.ZodObject && typeof seg === 'string') {
      const child = (s.shape as Record<string, z.ZodType | undefined>)[seg];
      return child ? [child] : [];
    }
    if (s instanceof z.ZodArray && typeof seg === 'number') return [s.element as z.ZodType];
    if (s instanceof z.ZodTuple && typeof seg === 'number') {
      const item = (s._zod.def.items as z.ZodType[])[seg];
      return item ? [item] : [];
    }
    if (s instanceof z.ZodRecord) return [s.valueType as z.ZodType];
    return [];
  });
}

function childValue(value: unknown, seg: Seg): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as Record<PropertyKey, unknown>)[seg];
}

/** The schemas that may apply at `path` of `value` (several under a union; none off the schema). */
export function schemasAt(schema: z.ZodType, path: readonly Seg[], value?: unknown): z.ZodType[] {
  let current: z.ZodType[] = [schema];
  let v = value;
  for (const seg of path) {
    current = current.flatMap((s) => step(s, seg, v));
    v = childValue(v, seg);
  }
  return current;
}

/** The keys allowed in the object at `path` of `value` (empty when not an object schema). */
export function allowedKeysAt(schema: z.ZodType, path: readonly Seg[], value: unknown): string[] {
  const current = schemasAt(schema, path, value);
  const v = path.reduce<unknown>((acc, seg) => childValue(acc, seg), value);
  const keys = new Set<string>();
  for (const s of current.flatMap((c) => narrow(unwrap(c), v))) {
    if (s instanceof z.ZodObject) for (const k of Object.keys(s.shape)) keys.add(k);
  }
  return [...keys];
}
