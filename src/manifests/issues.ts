/**
 * Turns zod issues into located, actionable diagnostics: unknown keys get a "did you mean",
 * enums and discriminators list their allowed values, missing keys are named. A value at a
 * sensitive path (or inside one) is never shown: only its type.
 */
import { Scrubber } from '../core/scrub.js';
import type * as z from 'zod';
import type { Document, LineCounter } from 'yaml';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { isSensitivePath, sensitivePathsOf } from './fields.js';
import { positionAt } from './positions.js';
import { allowedKeysAt } from './schema-walk.js';
import { closest, didYouMean } from './suggest.js';

export interface IssueContext {
  file: string;
  doc: Document;
  lineCounter: LineCounter;
  /** The schema that produced the issues and the value it checked (for allowed keys). */
  schema: z.ZodType;
  value: unknown;
  /** Where `value` sits in the document, e.g. `['spec']`. */
  basePath: readonly PropertyKey[];
  address?: string;
  /** Sensitive paths relative to `value` (default: the marks in `schema`). */
  sensitive?: readonly (readonly string[])[];
}

type Seg = PropertyKey;

function valueAt(value: unknown, path: readonly Seg[]): { found: boolean; value: unknown } {
  let v = value;
  for (const seg of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, seg)) return { found: false, value: undefined };
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return { found: true, value: v };
}

const HIDDEN = '(value not shown: sensitive field)';

function describe(v: unknown, hidden = false): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (hidden) return `${typeof v === 'string' ? 'a string' : `a ${typeof v}`} ${HIDDEN}`;
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  if (typeof v === 'number' && !Number.isFinite(v)) return `number ${String(v)} (out of range)`;
  return `${typeof v} ${JSON.stringify(v) ?? typeof v}`;
}

const show = (vals: readonly unknown[]) =>
  vals
    .filter((v) => v !== undefined)
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
    .join(', ');

const UNIT: Record<string, string> = { array: ' items', string: ' characters', set: ' items' };

function rangeMessage(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, value: unknown, hidden: boolean): string {
  const unit = UNIT[issue.origin] ?? '';
  const size = Array.isArray(value) ? value.length : typeof value === 'string' ? value.length : value;
  const got = hidden ? HIDDEN : `got ${String(size)}${unit}`;
  if (issue.code === 'too_big')
    return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}${unit}, ${got}`;
  return `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}${unit}, ${got}`;
}

/** One or more (path, code, message) for an issue, path relative to the checked value. */
function explain(issue: z.core.$ZodIssue, ctx: IssueContext): { path: Seg[]; code: string; message: string }[] {
  const path = issue.path;
  const here = valueAt(ctx.value, path);
  const hidden = isSensitivePath(path, ctx.sensitive ?? sensitivePathsOf(ctx.schema));
  const describeHere = () => describe(here.value, hidden);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = allowedKeysAt(ctx.schema, path, ctx.value);
      return issue.keys.map((key) => {
        const hint = didYouMean(key, allowed);
        return {
          path: [...path, key],
          code: 'unknown-key',
          message: `unknown key '${key}'${hint || (allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '')}`,
        };
      });
    }
    case 'invalid_type':
      if (!here.found) {
        const what = issue.expected === 'nonoptional' ? '' : ` (${issue.expected})`;
        return [{ path, code: 'missing-key', message: `missing required key '${String(path[path.length - 1] ?? '')}'${what}` }];
      }
      return [{ path, code: 'invalid-type', message: `expected ${issue.expected}, got ${describeHere()}` }];
    case 'invalid_value': {
      if (!here.found && path.length > 0)
        return [{ path, code: 'missing-key', message: `missing required key '${String(path.at(-1))}' (one of: ${show(issue.values)})` }];
      const generic = /^Invalid (option|input)/.test(issue.message);
      const candidates = issue.values.filter((v): v is string => typeof v === 'string');
      // A suggestion only for words: '2m' is not a typo of '1m'.
      const typo = typeof here.value === 'string' && here.value.length >= 4 && !hidden ? didYouMean(here.value, candidates) : '';
      const message = generic ? `invalid value ${describeHere()} — expected one of: ${show(issue.values)}${typo}` : issue.message;
      return [{ path, code: 'invalid-value', message: hidden ? withoutValue(message, here.value) : message }];
    }
    case 'invalid_union': {
      const { discriminator: disc, options, note } = issue as { discriminator?: string; options?: unknown[]; note?: string };
      if (note === 'No matching discriminator' && disc !== undefined && options) {
        if (here.found)
          return [{ path, code: 'invalid-value', message: `unknown ${disc} ${describeHere()} — expected one of: ${show(options)}` }];
        return missingDiscriminator(path, disc, options, ctx);
      }
      if (!here.found && path.length > 0)
        return [
          {
            path,
            code: 'missing-key',
            message: `missing required key '${String(path.at(-1))}' (${issue.message.replace(/^expected /, '')})`,
          },
        ];
      return [{ path, code: 'invalid-value', message: hidden ? withoutValue(issue.message, here.value) : issue.message }];
    }
    case 'invalid_key': {
      // A record's key that its key schema refuses: that schema's own message, not "Invalid key in record".
      const inner = issue.issues.find((i) => i.code !== 'invalid_type') ?? issue.issues[0];
      return [
        { path, code: 'invalid-key', message: inner ? `the key ${describe(path[path.length - 1])}: ${inner.message}` : issue.message },
      ];
    }
    case 'too_big':
    case 'too_small':
      return [{ path, code: 'out-of-range', message: rangeMessage(issue, here.value, hidden) }];
    default:
      return [{ path, code: 'invalid', message: hidden ? withoutValue(issue.message, here.value) : issue.message }];
  }
}

/**
 * A discriminated object without its discriminator (`displayType`): zod cannot tell which
 * option applies, so it names neither the discriminator's typo (`displayTyp`) nor other unknown
 * keys. A key close to the discriminator is that typo; else the missing key and every key no
 * option knows are named.
 */
function missingDiscriminator(
  discPath: readonly Seg[],
  disc: string,
  options: readonly unknown[],
  ctx: IssueContext,
): { path: Seg[]; code: string; message: string }[] {
  const parent = discPath.slice(0, -1);
  const object = valueAt(ctx.value, parent).value;
  const keys = typeof object === 'object' && object !== null && !Array.isArray(object) ? Object.keys(object) : [];
  const typo = keys.find((k) => closest(k, [disc]) === disc);
  const choices = `(${disc}: one of ${show(options)})`;
  if (typo !== undefined)
    return [{ path: [...parent, typo], code: 'unknown-key', message: `unknown key '${typo}' — did you mean '${disc}'? ${choices}` }];
  const allowed = allowedKeysAt(ctx.schema, parent, ctx.value);
  const unknown = keys.filter((k) => !allowed.includes(k));
  return [
    { path: [...discPath], code: 'missing-key', message: `missing required key '${disc}' — one of: ${show(options)}` },
    ...unknown.map((key) => ({
      path: [...parent, key],
      code: 'unknown-key',
      message: `unknown key '${key}'${didYouMean(key, allowed) || (allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '')}`,
    })),
  ];
}

/**
 * One error per mistake: a misspelt key (`sourse`) is reported by zod twice, as an unknown key
 * and as the missing key it was meant to be. The unknown key, which points at the typo and
 * suggests the right name, stays; the missing key it explains goes.
 */
function withoutExplainedMissing(found: readonly { path: Seg[]; code: string; message: string }[]) {
  const explained = new Set(
    found.flatMap((f) => {
      const meant = f.code === 'unknown-key' ? /did you mean '([^']+)'/.exec(f.message)?.[1] : undefined;
      return meant === undefined ? [] : [formatPath([...f.path.slice(0, -1), meant])];
    }),
  );
  return found.filter((f) => f.code !== 'missing-key' || !explained.has(formatPath(f.path)));
}

/**
 * A schema's own message at a sensitive path, with any rendering of the value taken out: by a
 * scrubber of its own that masks values of any length, under the one rule for short values (a
 * whole word only: a one-character header value must not turn `headers` into `h(sensitive)aders`, issue 40).
 */
function withoutValue(message: string, value: unknown): string {
  const values = new Scrubber(1);
  const collect = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') values.register(String(v));
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(collect);
  };
  collect(value);
  return values.scrub(message);
}

export function issuesToDiagnostics(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): Diagnostic[] {
  return withoutExplainedMissing(issues.flatMap((issue) => explain(issue, ctx))).map(({ path, code, message }) => {
    const full = [...ctx.basePath, ...path];
    const pos = positionAt(ctx.doc, ctx.lineCounter, full);
    const d: Diagnostic = { severity: 'error', code, message, file: ctx.file, line: pos.line, col: pos.col, path: formatPath(full) };
    if (ctx.address) d.address = ctx.address;
    return d;
  });
}
