/**
 * The opt-in rule of objects made on the service that pull writes as new manifests and the
 * daemon proposes (`--include-unmanaged`, `writeBack.include`): terms joined by commas that must
 * all hold — `Kind` (or `kind=Kind`), `tag=NAME` (the object carries the tag, e.g. `tag=gitops`),
 * `name=REGEX` (its display name matches). Light on purpose: obsync.yaml's schema checks a rule
 * with it at load.
 */
import type { LiveObject } from '../core/live.js';
import { isKind, MANAGED, type AnyKind } from '../kinds/registry.js';

export type UnmanagedRule = (kind: AnyKind, live: LiveObject, displayName: string) => boolean;

export class SelectorError extends Error {}

export function parseUnmanagedSelector(selector: string): UnmanagedRule {
  const terms = selector
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (terms.length === 0) throw new SelectorError('an empty selector');
  const tests = terms.map(termTest);
  return (kind, live, displayName) => tests.every((t) => t(kind, live, displayName));
}

function termTest(term: string): UnmanagedRule {
  const eq = term.indexOf('=');
  const key = eq < 0 ? 'kind' : term.slice(0, eq);
  const value = eq < 0 ? term : term.slice(eq + 1);
  if (key === 'kind') {
    if (!isKind(value)) throw new SelectorError(`${value} is not a kind obsync manages (one of ${MANAGED.map((d) => d.kind).join(', ')})`);
    return (kind) => kind === value;
  }
  if (key === 'tag') return (_kind, live) => tagsOf(live).includes(value);
  if (key === 'name') {
    let pattern: RegExp;
    try {
      pattern = new RegExp(value);
    } catch (err) {
      throw new SelectorError(`name=${value} is not a regular expression: ${(err as Error).message}`);
    }
    return (_kind, _live, name) => pattern.test(name);
  }
  throw new SelectorError(`'${term}' is not a selector term (Kind, kind=Kind, tag=NAME, name=REGEX)`);
}

function tagsOf(live: LiveObject): string[] {
  const tags = (live as { tags?: unknown }).tags;
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
}
