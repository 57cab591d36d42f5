/**
 * The real server validates with zod 3, whose default messages differ from zod 4's
 * (`Required` rather than `Invalid input: expected string, received undefined`). This per-parse
 * error map gives the sandbox's zod 4 schemas zod 3's English defaults, so validation failures read
 * like the server's (`Body validation failed: name: Required`). Messages set on a schema win over
 * it, as they do in zod.
 */
import type * as z from 'zod';

type Issue = z.core.$ZodRawIssue;

/** zod 3's `getParsedType` names. */
function parsedType(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : 'number';
  return typeof value;
}

const quoted = (values: readonly unknown[]) => values.map((v) => `'${String(v)}'`).join(' | ');

function sizeMessage(iss: Issue & { origin?: string; exact?: boolean; inclusive?: boolean }, bound: 'min' | 'max', limit: unknown): string {
  const n = String(limit);
  switch (iss.origin) {
    case 'string':
      return iss.exact
        ? `String must contain exactly ${n} character(s)`
        : `String must contain ` +
            `${bound === 'min' ? (iss.inclusive ? 'at least' : 'over') : iss.inclusive ? 'at most' : 'under'} ${n} ` +
            `character(s)`;
    case 'array':
    case 'set':
      return iss.exact
        ? `Array must contain exactly ${n} element(s)`
        : `Array must contain ` +
            `${bound === 'min' ? (iss.inclusive ? 'at least' : 'more than') : iss.inclusive ? 'at most' : 'less than'} ` +
            `${n} element(s)`;
    case 'number':
    case 'bigint':
      return `Number must be ${bound === 'min' ? 'greater than' : 'less than'}${iss.inclusive ? ' or equal to' : ''} ${n}`;
    default:
      return 'Invalid input';
  }
}

const FORMATS: Record<string, string> = {
  regex: 'Invalid',
  email: 'Invalid email',
  url: 'Invalid url',
  datetime: 'Invalid datetime',
  uuid: 'Invalid uuid',
};

/** zod 3's default message for a zod 4 issue. */
export function zod3Message(iss: Issue): string {
  const i: Issue & Record<string, unknown> = iss;
  switch (iss.code) {
    case 'invalid_type': {
      if (iss.input === undefined) return 'Required';
      if (i.expected === 'int') return 'Expected integer, received float';
      return `Expected ${String(i.expected)}, received ${parsedType(iss.input)}`;
    }
    case 'invalid_value': {
      const values = (i.values as unknown[] | undefined) ?? [];
      if (values.length === 1) return `Invalid literal value, expected ${JSON.stringify(values[0])}`;
      return `Invalid enum value. Expected ${quoted(values)}, received '${String(iss.input)}'`;
    }
    case 'too_small':
      return sizeMessage(i, 'min', i.minimum);
    case 'too_big':
      return sizeMessage(i, 'max', i.maximum);
    case 'invalid_format':
      return FORMATS[String(i.format)] ?? `Invalid ${String(i.format)}`;
    case 'unrecognized_keys':
      return `Unrecognized key(s) in object: ${((i.keys as string[] | undefined) ?? []).map((k) => `'${k}'`).join(', ')}`;
    case 'invalid_union':
      return i.note === 'No matching discriminator'
        ? `Invalid discriminator value. Expected ${quoted((i.options as unknown[] | undefined) ?? [])}`
        : 'Invalid input';
    case 'not_multiple_of':
      return `Number must be a multiple of ${String(i.divisor)}`;
    default:
      return 'Invalid input';
  }
}

/** Parse options for the sandbox's request schemas: `schema.safeParse(body, ZOD3)`. */
export const ZOD3 = { error: zod3Message } as const;
