/**
 * metadata.name of exported objects: a stable slug of the display name, unique per kind, the same
 * on every run. Stable: what changes with a setting is left out — the target's name (its
 * environment: `Storefront p99 (staging)`), and in an alert's title its measures (numbers, their
 * units, threshold words: `above 900 ms`), so the first threshold change does not make the name
 * lie. A name obsync already owns the object under (the inventory) is kept (`renames` says how to
 * move it to the stable one with previousNames); names that clash all get a suffix from their
 * object's id, so the suffix never depends on what else exists.
 */
import { createHash } from 'node:crypto';
import { slugify } from '../kinds/dashboard/schema.js';

const MAX = 253;
const VALID = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export interface NameCandidate {
  id: string;
  displayName: string;
}

/** What the stable slug leaves out of a display name. */
export interface SlugRules {
  /** The target's name: a display name that names its environment (`… (staging)`) loses it. */
  environment?: string | undefined;
  /** Drop measures (numbers, their units, threshold words): for alert titles. */
  measures?: boolean;
}

/** id → metadata.name for every object of one kind. `owned`: id → the name the inventory has it under. */
export function exportNames(
  objects: readonly NameCandidate[],
  fallback: string,
  owned: ReadonlyMap<string, string>,
  rules: SlugRules = {},
): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const o of objects) {
    const name = owned.get(o.id);
    if (name !== undefined && VALID.test(name) && !taken.has(name)) {
      names.set(o.id, name);
      taken.add(name);
    }
  }
  const byBase = new Map<string, string[]>();
  for (const o of objects) {
    if (names.has(o.id)) continue;
    const base = baseName(o.displayName, fallback, rules);
    const ids = byBase.get(base);
    if (ids) ids.push(o.id);
    else byBase.set(base, [o.id]);
  }
  for (const [base, ids] of byBase) {
    if (ids.length === 1 && !taken.has(base)) {
      names.set(ids[0] ?? '', base);
      taken.add(base);
      continue;
    }
    for (const id of ids) {
      let name = `${base}-${shortHash(id, 6)}`;
      for (let n = 8; taken.has(name) && n <= 64; n += 2) name = `${base}-${shortHash(id, n)}`;
      names.set(id, name);
      taken.add(name);
    }
  }
  return names;
}

/** An object obsync owns under a name other than the stable one it would be exported under now. */
export interface Rename {
  id: string;
  from: string;
  to: string;
}

/**
 * The owned objects whose name is not the stable one, with the name each would take: the names
 * an export with nothing owned gives, where that name is no other owned object's.
 */
export function renames(
  objects: readonly NameCandidate[],
  fallback: string,
  owned: ReadonlyMap<string, string>,
  rules: SlugRules = {},
): Rename[] {
  const fresh = exportNames(objects, fallback, new Map(), rules);
  const ownedNames = new Set(owned.values());
  const out: Rename[] = [];
  for (const o of objects) {
    const from = owned.get(o.id);
    const to = fresh.get(o.id);
    if (from !== undefined && to !== undefined && from !== to && !ownedNames.has(to)) out.push({ id: o.id, from, to });
  }
  return out;
}

function baseName(displayName: string, fallback: string, rules: SlugRules): string {
  // Room for a suffix on a clash (`-` and up to 64 hex digits is never needed; 16 is plenty).
  // Letters with accents keep their base letter: `Überblick` → `uberblick`.
  const ascii = displayName.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const slug = stableSlug(slugify(ascii), rules)
    .slice(0, MAX - 17)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

const THRESHOLD_WORDS = new Set(
  'above below over under exceeds exceeded exceeding greater less than higher lower between outside gt gte lt lte ge le'.split(' '),
);
const UNITS = new Set(
  'ms s sec secs second seconds m min mins minute minutes h hr hrs hour hours d day days pct percent rps rpm qps b kb mb gb k x'.split(' '),
);
/** A number, with a unit written against it (`900ms`, `5m`; `1.5s` is slugged to `1` and `5s`). */
const MEASURE = /^\d+(ms|s|m|h|d|k|kb|mb|gb|pct|x)?$/;

/** The slug without the environment's words, and (rules.measures) without the measures; the slug itself when nothing would be left. */
function stableSlug(slug: string, rules: SlugRules): string {
  let words = slug.split('-').filter((w) => w !== '');
  const env = slugify(rules.environment ?? '')
    .split('-')
    .filter((w) => w !== '');
  if (env.length > 0) words = withoutRun(words, env);
  if (rules.measures) words = withoutMeasures(words);
  return words.length > 0 ? words.join('-') : slug;
}

/** `words` without each occurrence of the run `run`. */
function withoutRun(words: readonly string[], run: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; ) {
    if (run.every((w, j) => words[i + j] === w)) i += run.length;
    else out.push(words[i++] ?? '');
  }
  return out;
}

function withoutMeasures(words: readonly string[]): string[] {
  const isNumber = (i: number) => MEASURE.test(words[i] ?? '');
  return words.filter((w, i) => {
    if (isNumber(i) || THRESHOLD_WORDS.has(w)) return false;
    if (UNITS.has(w) && isNumber(i - 1)) return false;
    // `between 5 and 10`, `5 to 10`, `not above`.
    if ((w === 'and' || w === 'to') && isNumber(i - 1) && isNumber(i + 1)) return false;
    return !(w === 'not' && THRESHOLD_WORDS.has(words[i + 1] ?? ''));
  });
}

function shortHash(id: string, length: number): string {
  return createHash('sha256').update(id).digest('hex').slice(0, length);
}

/** `Dashboard`, `checkout-p99` → the prefix of its export variables, ending `_DASHBOARD_CHECKOUT_P99`. */
export function envPrefix(kind: string, name: string): string {
  const kindPart = kind.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toUpperCase();
  return `OBSYNC_EXPORT_${kindPart}_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** `url` → `URL`, `source.kafka.credentials` → `SOURCE_KAFKA_CREDENTIALS`. */
export function envField(path: string): string {
  return path
    .replace(/(?<=[a-z0-9])([A-Z])/g, '_$1')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');
}
