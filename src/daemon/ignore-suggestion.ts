/**
 * The ignore rule a drifted field suggests (issue 48 item 2): a plan's change path in spec terms
 * (`tiles.p99.x`, `tiles[p99].x`, `savedFilterValues[0]`) read against the kind's schema, each list
 * item written as `[*]` (`tiles[*].x`), an item at the end left out (`savedFilterValues`: the list).
 * The result passes the same check as a rule someone writes (./ignore-rules.ts), or there is none.
 */
import { ANY_ITEM } from '../core/ignore.js';
import type { Kind } from '../core/plan.js';
import { specSchemas } from '../kinds/manifest.js';
import { managedDefinition } from '../kinds/registry.js';
import { splitPath } from '../planner/diff.js';
import { ignorePathProblem } from '../manifests/ignore-rules.js';
import { allowedKeysAt, schemasAt } from '../manifests/schema-walk.js';

/** The rule to suggest for a difference at `changePath` of a `kind` object; undefined when no valid rule names it. */
export function suggestedIgnoreRule(kind: Kind, changePath: string): string | undefined {
  const schema = specSchemas[kind];
  const walked: (string | number)[] = [];
  const rule: string[] = [];
  for (const seg of splitPath(changePath)) {
    if (typeof seg === 'string' && schemasAt(schema, [...walked, seg]).length > 0) {
      walked.push(seg);
      rule.push(seg);
    } else if (schemasAt(schema, [...walked, 0]).length > 0) {
      walked.push(0);
      rule.push(ANY_ITEM);
    } else return undefined;
  }
  // A whole tile added or removed is not a field the UI owns: ignoring the list would hide every tile.
  if (rule.at(-1) === ANY_ITEM && managedDefinition(kind)?.parts && allowedKeysAt(schema, walked, undefined).includes('key'))
    return undefined;
  while (rule.at(-1) === ANY_ITEM) rule.pop();
  if (rule.length === 0) return undefined;
  const text = rule.map((seg, i) => (seg === ANY_ITEM ? `[${ANY_ITEM}]` : i === 0 ? seg : `.${seg}`)).join('');
  return ignorePathProblem(kind, text) === undefined ? text : undefined;
}
