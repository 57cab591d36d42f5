/**
 * The field edits that turn one manifest value into another, as few and as local as a reviewer
 * would make them: entries added and removed by key (after the entry that precedes them in the
 * new value), list items aligned by their identity (a tile's `key`, else the slug of its `name`,
 * else the item itself), so a tile added in the middle of a dashboard is one inserted item and a
 * moved tile is two changed numbers. The alignment only decides how small the edits are; whether
 * they are right is judged by the caller on the canonical forms.
 */
import { isJsonObject, sameJson } from '../core/json.js';
import type { Json, JsonObject } from '../core/wire.js';
import { slugify } from '../kinds/dashboard/schema.js';
import { stableJson } from '../planner/diff.js';
import type { Edit, Path } from './edits.js';

export function diffValues(before: Json | undefined, after: Json, path: Path = []): Edit[] {
  if (sameJson(before, after)) return [];
  if (isJsonObject(before) && isJsonObject(after)) return diffMaps(before, after, path);
  if (Array.isArray(before) && Array.isArray(after) && before.length > 0 && after.length > 0) return diffLists(before, after, path);
  return [{ op: 'set', path, value: after }];
}

function diffMaps(before: JsonObject, after: JsonObject, path: Path): Edit[] {
  const oldKeys = Object.keys(before);
  const newKeys = Object.keys(after);
  // A map left without any of its entries is written again whole (a block map cannot lose its last line).
  if (oldKeys.length > 0 && oldKeys.every((k) => !Object.hasOwn(after, k))) return [{ op: 'set', path, value: after }];
  const out: Edit[] = [];
  for (const key of oldKeys) {
    const next = after[key];
    if (!Object.hasOwn(after, key) || next === undefined) out.push({ op: 'remove', path: [...path, key] });
    else out.push(...diffValues(before[key], next, [...path, key]));
  }
  newKeys.forEach((key, i) => {
    const value = after[key];
    if (Object.hasOwn(before, key) || value === undefined) return;
    const preceding = newKeys
      .slice(0, i)
      .reverse()
      .find((k) => Object.hasOwn(before, k));
    out.push(preceding === undefined ? { op: 'add', path, key, value } : { op: 'add', path, key, value, after: preceding });
  });
  return out;
}

function diffLists(before: Json[], after: Json[], path: Path): Edit[] {
  const oldIds = identities(before);
  const newIds = identities(after);
  if (before.length === after.length && (!oldIds || !newIds || oldIds.every((id, i) => id === newIds[i])))
    return before.flatMap((item, i) => diffValues(item, after[i] ?? null, [...path, i]));
  const same = (a: number, b: number) => (oldIds && newIds ? oldIds[a] === newIds[b] : sameJson(before[a], after[b]));
  const pairs = longestCommon(before.length, after.length, same);
  if (pairs.length === 0) return [{ op: 'set', path, value: after }];
  const out: Edit[] = [];
  const matchedOld = new Set(pairs.map(([a]) => a));
  for (let i = 0; i < before.length; i++) if (!matchedOld.has(i)) out.push({ op: 'remove', path: [...path, i] });
  after.forEach((item, j) => {
    const pair = pairs.find(([, b]) => b === j);
    if (pair) {
      out.push(...diffValues(before[pair[0]], item, [...path, pair[0]]));
      return;
    }
    // Before the next old item that stays.
    const following = pairs.find(([, b]) => b > j);
    out.push({ op: 'insert', path, index: following ? following[0] : before.length, value: item });
  });
  return out;
}

/** Each item's identity (`key`, else the slug of `name`, else its value), or undefined when they are not unique. */
function identities(items: readonly Json[]): string[] | undefined {
  const ids = items.map((item) => {
    if (!isJsonObject(item)) return `=${stableJson(item)}`;
    if (typeof item.key === 'string') return `#${item.key}`;
    if (typeof item.name === 'string') return `#${slugify(item.name)}`;
    return `=${stableJson(item)}`;
  });
  return new Set(ids).size === ids.length ? ids : undefined;
}

/** Index pairs of a longest common subsequence (quadratic: lists in manifests are short). */
function longestCommon(n: number, m: number, same: (a: number, b: number) => boolean): [number, number][] {
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let a = n - 1; a >= 0; a--)
    for (let b = m - 1; b >= 0; b--) {
      const row = table[a] as number[];
      // eslint-disable-next-line no-restricted-syntax -- an array by index
      row[b] = same(a, b) ? (table[a + 1]?.[b + 1] ?? 0) + 1 : Math.max(table[a + 1]?.[b] ?? 0, row[b + 1] ?? 0);
    }
  const out: [number, number][] = [];
  for (let a = 0, b = 0; a < n && b < m; ) {
    if (same(a, b)) {
      out.push([a, b]);
      a += 1;
      b += 1;
    } else if ((table[a + 1]?.[b] ?? 0) >= (table[a]?.[b + 1] ?? 0)) a += 1;
    else b += 1;
  }
  return out;
}
