/**
 * Structural diff of two canonical (normalised) objects. Objects are compared key by key,
 * arrays index by index when their lengths match and as a whole otherwise. A value of the form
 * `{"$sensitive": "<fingerprint>"}` is compared by fingerprint and reported masked.
 */
import type { Change } from '../core/plan.js';
import { SENSITIVE } from '../core/secret.js';
import type { Json } from '../core/wire.js';
import { isJsonObject as isPlainObject, ownMember, sameJson } from '../core/json.js';

export { isPlainObject, sameJson };

type Canonical = Json | undefined;

export function diffCanonical(before: Canonical, after: Canonical, path = ''): Change[] {
  const out: Change[] = [];
  walk(before, after, path, out);
  return out;
}

function walk(before: Canonical, after: Canonical, path: string, out: Change[]): void {
  // Most of a plan is equal subtrees: leave them before building any path string.
  if (sameJson(before, after)) return;
  if (isSensitive(before) || isSensitive(after)) {
    out.push(sensitiveChange(path, before, after));
    return;
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) walk(ownMember(before, key), ownMember(after, key), joinKey(path, key), out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => walk(item, after[i], `${path}[${i}]`, out));
    return;
  }
  const change: Change = { path };
  if (before !== undefined) change.before = maskFingerprints(before);
  if (after !== undefined) change.after = maskFingerprints(after);
  out.push(change);
}

/** Replaces every `{"$sensitive": …}` inside a value shown to users. */
export function maskFingerprints(value: Json): Json {
  if (isSensitive(value)) return SENSITIVE;
  if (Array.isArray(value)) return value.map(maskFingerprints);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskFingerprints(v)]));
  return value;
}

function sensitiveChange(path: string, before: Canonical, after: Canonical): Change {
  const change: Change = { path, sensitive: true };
  if (before !== undefined) change.before = SENSITIVE;
  if (after !== undefined) change.after = SENSITIVE;
  return change;
}

export function isSensitive(value: Canonical): value is { $sensitive: string } {
  return isPlainObject(value) && Object.keys(value).length === 1 && typeof value.$sensitive === 'string';
}

/** Keys that are not simple identifiers are bracketed: `tiles[p99-latency]`. */
function joinKey(path: string, key: string): string {
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${key}]`;
}

/**
 * Stable serialisation (sorted keys) for hashing and equality of whole objects. Hot: every live object and spec goes through it once per
 * plan.
 */
export function stableJson(value: Canonical): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + stableJson(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = value[key];
    if (item === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${stableJson(item)}`;
    first = false;
  }
  return `${out}}`;
}

/** Reads the value at a path produced by `diffCanonical` (for non-convergence bookkeeping). */
export function valueAt(root: Canonical, path: string): Canonical {
  let cur: Canonical = root;
  for (const seg of splitPath(path)) {
    if (cur === undefined || cur === null) return undefined;
    if (Array.isArray(cur)) cur = typeof seg === 'number' ? cur[seg] : undefined;
    else cur = isPlainObject(cur) ? ownMember(cur, String(seg)) : undefined;
  }
  return cur;
}

export function splitPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(/^(0|[1-9]\d*)$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  return out;
}
