/**
 * Tile formula expressions: `+ - * /`, parentheses, numeric constants and single uppercase
 * letters naming select items (`A` = select[0]). Returns a problem message, or undefined.
 */
const MAX_NESTING = 64;

type Token = { kind: 'num' | 'ref' | 'op' | 'open' | 'close'; text: string };

function tokenize(expression: string): Token[] | string {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+(?:\.\d+)?)|([A-Z])(?![A-Za-z0-9_])|([-+*/])|(\()|(\)))/y;
  let index = 0;
  while (index < expression.length) {
    if (/^\s*$/.test(expression.slice(index))) break;
    pattern.lastIndex = index;
    const m = pattern.exec(expression);
    if (!m) return `Invalid formula near "${expression.slice(index).trim()}"`;
    index = pattern.lastIndex;
    if (m[1] !== undefined) tokens.push({ kind: 'num', text: m[1] });
    else if (m[2] !== undefined) tokens.push({ kind: 'ref', text: m[2] });
    else if (m[3] !== undefined) tokens.push({ kind: 'op', text: m[3] });
    else if (m[4] !== undefined) tokens.push({ kind: 'open', text: '(' });
    else tokens.push({ kind: 'close', text: ')' });
  }
  return tokens;
}

/** Checks the token sequence: operand/operator alternation (unary minus allowed) and balanced parentheses. */
function checkShape(tokens: Token[]): string | undefined {
  let depth = 0;
  let expectOperand = true;
  for (const t of tokens) {
    if (expectOperand) {
      if (t.kind === 'open') depth += 1;
      else if (t.kind === 'op' && t.text === '-') continue;
      else if (t.kind === 'num' || t.kind === 'ref') expectOperand = false;
      else return `Invalid formula: unexpected "${t.text}"`;
      if (depth > MAX_NESTING) return `Invalid formula: nesting deeper than ${MAX_NESTING}`;
    } else if (t.kind === 'op') expectOperand = true;
    else if (t.kind === 'close') {
      depth -= 1;
      if (depth < 0) return 'Invalid formula: unbalanced parentheses';
    } else return `Invalid formula: unexpected "${t.text}"`;
  }
  if (expectOperand) return 'Invalid formula: incomplete expression';
  return depth === 0 ? undefined : 'Invalid formula: unbalanced parentheses';
}

export function formulaProblem(expression: string, selectCount: number): string | undefined {
  const tokens = tokenize(expression);
  if (typeof tokens === 'string') return tokens;
  if (tokens.length === 0) return 'Invalid formula: empty expression';
  const shape = checkShape(tokens);
  if (shape) return shape;
  const refs = tokens.filter((t) => t.kind === 'ref').map((t) => t.text);
  if (refs.length === 0) return 'Formula must reference at least one series';
  const valid = Array.from({ length: selectCount }, (_, i) => String.fromCharCode(65 + i));
  const unknown = refs.find((r) => !valid.includes(r));
  if (unknown) return `Unknown series "${unknown}" — formulas may only reference ${valid.join(', ')}`;
  return undefined;
}
