/**
 * Turns zod issues into located, actionable diagnostics: unknown keys get a "did you mean",
 * enums and discriminators list their allowed values, missing keys are named. A value at a
 * sensitive path (or inside one) is never shown: only its type.
 */
import type * as z from 'zod';
import type { Document, LineCounter } from 'yaml';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { isSensitivePath, sensitivePathsOf } from './fields.js';
import { positionAt } from './positions.js';
import { allowedKeysAt } from './schema-walk.js';
import { didYouMean } from './suggest.js';

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
    if (typeof v !== 'object' || v === null || !(seg in v)) return { found: false, value: undefined };
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
      const generic = /^Invalid (option|input)/.test(issue.message);
      const message = generic ? `invalid value ${describeHere()} — expected one of: ${show(issue.values)}` : issue.message;
      return [{ path, code: 'invalid-value', message: hidden ? withoutValue(message, here.value) : message }];
    }
    case 'invalid_union': {
      const { discriminator: disc, options, note } = issue as { discriminator?: string; options?: unknown[]; note?: string };
      if (note === 'No matching discriminator' && disc !== undefined && options) {
        const message = here.found
          ? `unknown ${disc} ${describeHere()} — expected one of: ${show(options)}`
          : `missing required key '${disc}' — one of: ${show(options)}`;
        return [{ path, code: here.found ? 'invalid-value' : 'missing-key', message }];
      }
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

/** A schema's own message at a sensitive path, with any rendering of the value taken out. */
function withoutValue(message: string, value: unknown): string {
  const leaves: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') leaves.push(String(v));
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(collect);
  };
  collect(value);
  let out = message;
  for (const leaf of leaves.filter((l) => l.length > 0).sort((a, b) => b.length - a.length)) out = out.split(leaf).join('(sensitive)');
  return out;
}

export function issuesToDiagnostics(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): Diagnostic[] {
  return issues.flatMap((issue) =>
    explain(issue, ctx).map(({ path, code, message }) => {
      const full = [...ctx.basePath, ...path];
      const pos = positionAt(ctx.doc, ctx.lineCounter, full);
      const d: Diagnostic = { severity: 'error', code, message, file: ctx.file, line: pos.line, col: pos.col, path: formatPath(full) };
      if (ctx.address) d.address = ctx.address;
      return d;
    }),
  );
}
