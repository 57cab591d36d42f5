/**
 * Checks an ignore rule against its kind's manifest schema (issue 48): a path that names no field
 * is an error with a did-you-mean, so a typo never silently ignores nothing. A sensitive field is
 * not ignorable (its live value is never read back into a plan), nor is a part's key (obsync's own).
 */
import { ANY_ITEM, parseIgnorePath } from '../core/ignore.js';
import type { Kind } from '../core/plan.js';
import { specSchemas } from '../kinds/manifest.js';
import { managedDefinition } from '../kinds/registry.js';
import { SENSITIVE_PATHS } from '../kinds/sensitive-paths.js';
import { allowedKeysAt, schemasAt } from './schema-walk.js';
import { didYouMean } from './suggest.js';

/** Undefined when `path` names a field a rule may ignore in a `kind` manifest; else why not, and what to write. */
export function ignorePathProblem(kind: Kind, path: string): string | undefined {
  const parsed = parseIgnorePath(path);
  if ('error' in parsed) return `ignore path '${path}': ${parsed.error}`;
  const schema = specSchemas[kind];
  const walked: (string | number)[] = [];
  for (const seg of parsed.segments) {
    const at = `spec${shown(walked)}`;
    if (seg === ANY_ITEM) {
      if (schemasAt(schema, [...walked, 0]).length === 0) return `ignore path '${path}': ${at} is not a list (leave out [*])`;
      walked.push(0);
      continue;
    }
    if (schemasAt(schema, [...walked, seg]).length === 0) {
      if (schemasAt(schema, [...walked, 0]).length > 0)
        return `ignore path '${path}': ${at} is a list: write ${shown(walked).slice(1)}[*].${seg}`;
      const keys = allowedKeysAt(schema, walked, undefined);
      return `ignore path '${path}': ${kind} has no field ${at}.${seg}${didYouMean(seg, keys)}`;
    }
    walked.push(seg);
  }
  const segments = walked.map(String);
  if ((SENSITIVE_PATHS.get(kind) ?? []).some((pattern) => overlaps(pattern, segments)))
    return `ignore path '${path}': it is or holds a sensitive field, whose live value obsync never reads back; it cannot be ignored`;
  const parts = managedDefinition(kind)?.parts;
  if (parts && segments.length === 3 && segments[1] === '0' && segments[2] === 'key')
    return `ignore path '${path}': a ${parts.noun}'s key is obsync's name for it, not a field of the service`;
  return undefined;
}

/** Two paths, either a prefix of the other ('*' and an item index match each other). */
function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    const item = (s: string | undefined) => s === ANY_ITEM || s === '0';
    if (x !== y && !(item(x) && item(y))) return false;
  }
  return true;
}

/** `.tiles[*].config` for the walked segments (item indexes shown as [*]). */
function shown(walked: readonly (string | number)[]): string {
  return walked.map((s) => (typeof s === 'number' ? `[${ANY_ITEM}]` : `.${s}`)).join('');
}
