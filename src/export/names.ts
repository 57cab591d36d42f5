/**
 * metadata.name of exported objects: the slug of the display name, unique per kind, the same on
 * every run. A name obsync already owns the object under (the inventory) is kept; names that
 * clash all get a suffix from their object's id, so the suffix never depends on what else exists.
 */
import { createHash } from 'node:crypto';
import { slugify } from '../kinds/dashboard/schema.js';

const MAX = 253;
const VALID = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export interface NameCandidate {
  id: string;
  displayName: string;
}

/** id → metadata.name for every object of one kind. `owned`: id → the name the inventory has it under. */
export function exportNames(objects: readonly NameCandidate[], fallback: string, owned: ReadonlyMap<string, string>): Map<string, string> {
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
    const base = baseName(o.displayName, fallback);
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

function baseName(displayName: string, fallback: string): string {
  // Room for a suffix on a clash (`-` and up to 64 hex digits is never needed; 16 is plenty).
  // Letters with accents keep their base letter: `Überblick` → `uberblick`.
  const ascii = displayName.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const slug = slugify(ascii)
    .slice(0, MAX - 17)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
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
