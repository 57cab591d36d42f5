/**
 * A comma-separated SQL list (a select list, a group-by) split into its items: only commas outside
 * parentheses, brackets and quotes separate (`toString(x, 'a,b')` and `m['k,1']` stay one item);
 * items are trimmed and empty ones dropped.
 */
export function splitSqlList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}
