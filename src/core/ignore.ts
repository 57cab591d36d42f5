/**
 * Ignore rules (issue 48): fields the people at the screen own. A rule is a path in a manifest's
 * spec terms (`tiles[*].x`, `savedFilterValues`); a difference at or under it is neither planned,
 * reverted, pulled nor proposed — the plan shows it as "ignored by rule …". `[*]` stands for every
 * item of a list (a dashboard's tiles, matched by their key).
 */

/** One rule and where it was declared (`defaults.ignore.Dashboard`, `targets[prod].ignore.Dashboard`, `metadata.ignore`). */
export interface IgnoreRule {
  path: string;
  from: string;
}

/** Every item of a list. */
export const ANY_ITEM = '*';

const NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * The segments of a rule's path (`tiles[*].x` → ['tiles', '*', 'x']), or a message saying what is
 * wrong with its spelling. Field names and `[*]` only: a rule names the same field of every item.
 */
export function parseIgnorePath(path: string): { segments: string[] } | { error: string } {
  const segments: string[] = [];
  const re = /\.?([^.[\]]+)|\[([^\]]*)\]/gy;
  let at = 0;
  for (let m = re.exec(path); m !== null && m.index === at; m = re.exec(path)) {
    at = re.lastIndex;
    const name = m[1];
    const item = m[2];
    if (name !== undefined) {
      const dotted = m[0].startsWith('.');
      if (!NAME.test(name) || dotted === (segments.length === 0)) return { error: `'${name}' at ${m.index} is not a field name` };
      segments.push(name);
    } else if (item === ANY_ITEM && segments.length > 0) segments.push(ANY_ITEM);
    else return { error: `write [*] for the items of a list (found [${item ?? ''}])` };
  }
  if (at !== path.length || segments.length === 0)
    return { error: 'a path is field names joined by "." with [*] after a list, e.g. tiles[*].x' };
  return { segments };
}

/**
 * Whether a difference at `changePath` (a plan's path: `tiles[p99].x`, `savedFilterValues[0]`)
 * lies at or under the rule: a field name matches itself, `[*]` any item (index or part key).
 */
export function ruleCovers(segments: readonly string[], changePath: readonly (string | number)[]): boolean {
  if (changePath.length < segments.length) return false;
  return segments.every((seg, i) => seg === ANY_ITEM || seg === String(changePath[i]));
}
