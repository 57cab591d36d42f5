/**
 * Rules `obsync validate` enforces that the editor schema states too, each made from one
 * definition so the two cannot drift (issue 54): zod checks a document with it, and its JSON
 * Schema form is what the editor schema carries (a field's pattern; a definition's if/then, put on
 * its definition by src/config/json-schema.ts). Patterns are JSON Schema's (ECMAScript, no flags).
 */
import * as z from 'zod';

/** An http(s) URL with a host: the scheme is case-insensitive, as URLs have it; no whitespace anywhere. */
export const HTTP_URL_PATTERN = String.raw`^[hH][tT][tT][pP][sS]?://[^\s/?#]+([/?#]\S*)?$`;

/** An http(s) URL: zod's URL check and the pattern, which the editor schema carries beside `format: uri`. */
export function httpUrl(error: string) {
  // One message: the pattern is not checked again once the URL check failed.
  return z.url({ error, abort: true }).regex(new RegExp(HTTP_URL_PATTERN), { error }).meta({ format: 'uri' });
}

/** A name that is more than spaces (validate trims it first): one character that is not white space. */
export const NOT_BLANK_PATTERN = String.raw`\S`;

/** Text without control characters (CR, LF, tab, NUL…): a header or query value the service refuses otherwise. */
export const NO_CONTROL_PATTERN = String.raw`^[^\x00-\x1F\x7F]*$`;

type Json = Record<string, unknown>;

/** Rules that apply when a field has one value (a webhook's `service: slack`). */
export interface WhenRule {
  when: { field: string; equals: string };
  /** Fields whose value must match a pattern, with validate's message. */
  patterns?: readonly { field: string; pattern: string; message: string }[];
  /** Fields that must be absent, with validate's message. */
  absent?: readonly { field: string; message: string }[];
}

/** The rule as validate checks it (a zod superRefine of the object). */
export function checkWhen(rule: WhenRule, spec: Readonly<Record<string, unknown>>, ctx: z.RefinementCtx): void {
  if (spec[rule.when.field] !== rule.when.equals) return;
  for (const { field, pattern, message } of rule.patterns ?? []) {
    const value = spec[field];
    if (typeof value === 'string' && !new RegExp(pattern).test(value)) ctx.addIssue({ code: 'custom', path: [field], message });
  }
  for (const { field, message } of rule.absent ?? []) {
    if (spec[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message });
  }
}

/** The rule as the editor schema states it: `if` the field has the value, `then` the patterns hold and the fields are absent. */
export function whenJsonSchema(rule: WhenRule): Json {
  const { field, equals } = rule.when;
  const patterns = rule.patterns ?? [];
  const absent = rule.absent ?? [];
  const then: Json = {};
  if (patterns.length > 0) then.properties = Object.fromEntries(patterns.map((p) => [p.field, { type: 'string', pattern: p.pattern }]));
  if (absent.length > 0) then.not = { anyOf: absent.map((a) => ({ properties: { [a.field]: true }, required: [a.field] })) };
  return { if: { properties: { [field]: { const: equals } }, required: [field] }, then };
}
