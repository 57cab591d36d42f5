/**
 * A change in a kind's own words, for reviewers (the pull-request comment): sentences such as
 * `threshold 500 → 400`, and a row per keyed part (a dashboard's tiles: added, removed, moved,
 * resized, query changed). A kind contributes it with the optional `summarise` of its
 * definition; kinds without one are summarised field by field by the renderer.
 */
import type { Json } from '../core/wire.js';
import type { RefToken } from './refs.js';
import { isJsonObject, ownMember } from '../core/json.js';

/** Whether a value is a JSON object (summaries read both sides of a change with it). */
export const isRecord = (value: Json | null | undefined): value is { [key: string]: Json } => isJsonObject(value ?? null);

export interface ChangeSummary {
  /** Plain-language sentences, most important first. */
  sentences: string[];
  /** One row per part that changed, when the kind has parts. */
  parts?: PartChanges;
}

export interface PartChanges {
  /** What a part is called: `tile`. */
  noun: string;
  rows: PartChange[];
}

export interface PartChange {
  key: string;
  /** The part's display name, when it has one. */
  name?: string;
  /** What happened to it: `added`, `removed`, `moved`, `resized`, `query changed`, `renamed`… */
  changes: string[];
  /** The details, short: `x 0 → 6`, `w 6 → 12`. */
  details: string[];
}

/** How a kind's change is summarised: the masked whole forms before and after (null: none, for a create or a delete). */
export type Summariser = (before: Json | null, after: Json | null) => ChangeSummary;

/** A short rendering of a value in a sentence (`500`, `"Checkout"`, `ops-slack`, `[a, b]`). */
export function shortValue(value: Json | undefined, max = 60): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A reference token as a reader knows it: the name, or `id …` for an object known by id only. */
export function tokenText(token: Json | undefined): string {
  if (typeof token === 'string') return token;
  const t = token as RefToken | null | undefined;
  if (t && typeof t === 'object' && typeof t.name === 'string') return t.name;
  if (t && typeof t === 'object' && typeof t.id === 'string') return `id ${t.id}`;
  return '(none)';
}

/** A changed leaf between two values: `select[0].aggFn`. */
export interface LeafChange {
  path: string;
  before: Json | undefined;
  after: Json | undefined;
}

/** The changed leaves of two values (arrays of different lengths compare whole). */
export function leafChanges(before: Json | undefined, after: Json | undefined, path = ''): LeafChange[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (isRecord(before ?? null) && isRecord(after ?? null)) {
    const b = before as { [key: string]: Json };
    const a = after as { [key: string]: Json };
    return [...new Set([...Object.keys(b), ...Object.keys(a)])].flatMap((k) =>
      leafChanges(ownMember(b, k), ownMember(a, k), path === '' ? k : `${path}.${k}`),
    );
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length)
    return before.flatMap((item, i) => leafChanges(item, after[i], `${path}[${i}]`));
  return [{ path, before, after }];
}

/** `path a → b`, `path added: b`, `path removed`. */
export function leafText(change: LeafChange): string {
  const at = change.path === '' ? '' : `${change.path} `;
  if (change.before === undefined) return `${at}set to ${shortValue(change.after, 40)}`;
  if (change.after === undefined) return `${at}removed`;
  return `${at}${shortValue(change.before, 40)} → ${shortValue(change.after, 40)}`;
}
