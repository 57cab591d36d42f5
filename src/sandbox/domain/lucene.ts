/**
 * Whether a Lucene `where` parses, as the real server's query parser decides it: hyperdx
 * common-utils `parse()` (queryParser.ts at b52a6fa8) rewrites a few tokens and hands the text to
 * the `lucene` PEG grammar (bripkens/lucene `lucene.grammar`). This is a recogniser for that
 * grammar with PEG semantics (ordered choice, greedy repetition, the start rule must consume the
 * whole input), memoised per rule and position. It answers an error message in the parser's
 * form (`Expected ... but "x" found.`), or undefined when the query parses.
 */

const ESCAPABLE = new Set(['+', '-', '!', '(', ')', '{', '}', '[', ']', '^', '"', '?', ':', '\\', '&', '|', "'", '/', '~', '*', ' ']);
// The grammar's term characters; unlike upstream bripkens/lucene, hyperdx's fork takes '/' inside
// terms (its own tests parse `http://a.com http://b.com`).
const TERM_STOP = new Set([':', ' ', '\t', '\r', '\n', '\f', '{', '}', '(', ')', '"', '^', '~', '[', ']']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n', '\f']);
const OPERATORS = ['OR NOT', 'AND NOT', 'OR', 'AND', 'NOT', '||', '&&', '!'];
const FAIL = -1;

/** The token rewrites hyperdx applies before parsing (`encodeSpecialTokens`). */
function encodeSpecialTokens(query: string): string {
  return query
    .replace(/\\\\/g, 'HDX_BACKSLASH_LITERAL')
    .replace(/http:\/\//g, 'http_COLON_//')
    .replace(/https:\/\//g, 'https_COLON_//')
    .replace(/localhost:(\d{1,5})/g, 'localhost_COLON_$1')
    .replace(/\\:/g, 'HDX_COLON');
}

class Recogniser {
  farthest = 0;
  private readonly memo = new Map<string, number>();

  constructor(private readonly s: string) {}

  private at(p: number): string | undefined {
    return this.s[p];
  }

  private fail(p: number): number {
    if (p > this.farthest) this.farthest = p;
    return FAIL;
  }

  private cached(rule: string, p: number, parse: () => number): number {
    const key = `${rule}@${p}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    const result = parse();
    this.memo.set(key, result);
    return result;
  }

  private literal(p: number, text: string): number {
    return this.s.startsWith(text, p) ? p + text.length : this.fail(p);
  }

  /** `_*` (whitespace, possibly none). */
  private ws0(p: number): number {
    while (WHITESPACE.has(this.at(p) ?? '')) p += 1;
    return p;
  }

  /** `_+`. */
  private ws1(p: number): number {
    const q = this.ws0(p);
    return q > p ? q : this.fail(p);
  }

  private eof(p: number): number {
    return p === this.s.length ? p : this.fail(p);
  }

  private operator(p: number): number {
    for (const op of OPERATORS) if (this.s.startsWith(op, p)) return p + op.length;
    return this.fail(p);
  }

  private operatorExp(p: number): number {
    return this.cached('operatorExp', p, () => {
      const op = this.operator(this.ws0(p));
      if (op === FAIL) return FAIL;
      const spaced = this.ws1(op);
      return spaced !== FAIL ? spaced : this.eof(op);
    });
  }

  private termChar(p: number, allowColon: boolean): number {
    const c = this.at(p);
    if (c === undefined) return this.fail(p);
    if (c === '\\' && ESCAPABLE.has(this.at(p + 1) ?? '')) return p + 2;
    if (c === '.') return p + 1;
    if (TERM_STOP.has(c) && !(allowColon && c === ':')) return this.fail(p);
    return p + 1;
  }

  private many1(p: number, item: (p: number) => number): number {
    let q = item(p);
    if (q === FAIL) return FAIL;
    for (let next = item(q); next !== FAIL; next = item(q)) q = next;
    return q;
  }

  private unquotedTerm(p: number): number {
    return this.many1(p, (q) => this.termChar(q, false));
  }

  private rangedTerm(p: number): number {
    return this.many1(p, (q) => this.termChar(q, true));
  }

  private quotedTerm(p: number): number {
    if (this.at(p) !== '"') return this.fail(p);
    let q = p + 1;
    for (;;) {
      const c = this.at(q);
      if (c === undefined) return this.fail(q);
      if (c === '"') return q + 1;
      if (c === '\\') {
        if (!ESCAPABLE.has(this.at(q + 1) ?? '')) return this.fail(q);
        q += 2;
      } else q += 1;
    }
  }

  private digits(p: number): number {
    return this.many1(p, (q) => (/[0-9]/.test(this.at(q) ?? '') ? q + 1 : this.fail(q)));
  }

  private decimal(p: number): number {
    const q = this.literal(p, '0.');
    return q === FAIL ? FAIL : this.digits(q);
  }

  private optional(p: number, parse: (p: number) => number): number {
    const q = parse(p);
    return q === FAIL ? p : q;
  }

  private boost(p: number): number {
    const q = this.literal(p, '^');
    if (q === FAIL) return FAIL;
    const d = this.decimal(q);
    return d !== FAIL ? d : this.digits(q);
  }

  private prefixOperator(p: number): number {
    const q = this.ws0(p);
    const c = this.at(q);
    return c === '+' || c === '-' ? q + 1 : this.fail(q);
  }

  private term(p: number): number {
    return this.cached('term', p, () => {
      const start = this.optional(p, (q) => this.prefixOperator(q));
      const quoted = this.quotedTerm(start);
      if (quoted !== FAIL) {
        let q = this.optional(quoted, (r) => {
          const t = this.literal(r, '~');
          return t === FAIL ? FAIL : this.digits(t);
        });
        q = this.optional(q, (r) => this.boost(r));
        return this.ws0(q);
      }
      const unquoted = this.unquotedTerm(start);
      if (unquoted === FAIL) return FAIL;
      let q = this.optional(unquoted, (r) => {
        const t = this.literal(r, '~');
        return t === FAIL ? FAIL : this.optional(t, (u) => this.decimal(u));
      });
      q = this.optional(q, (r) => this.boost(r));
      return this.ws0(q);
    });
  }

  private fieldname(p: number): number {
    const name = this.unquotedTerm(p);
    if (name === FAIL) return FAIL;
    const colon = this.literal(name, ':');
    return colon === FAIL ? FAIL : this.ws0(colon);
  }

  private range(p: number): number {
    const open = this.at(p);
    if (open !== '[' && open !== '{') return this.fail(p);
    const min = this.rangedTerm(p + 1);
    if (min === FAIL) return FAIL;
    const to = this.literal(this.ws0(min), 'TO');
    if (to === FAIL) return FAIL;
    const spaced = this.ws1(to);
    if (spaced === FAIL) return FAIL;
    const max = this.rangedTerm(spaced);
    if (max === FAIL) return FAIL;
    const close = this.at(max);
    return close === ']' || close === '}' ? max + 1 : this.fail(max);
  }

  private fieldExp(p: number): number {
    return this.cached('fieldExp', p, () => {
      const ranged = this.range(this.optional(p, (q) => this.fieldname(q)));
      if (ranged !== FAIL) return ranged;
      const name = this.fieldname(p);
      if (name !== FAIL) {
        const group = this.parenExp(name);
        if (group !== FAIL) return group;
      }
      return this.term(this.optional(p, (q) => this.fieldname(q)));
    });
  }

  private parenExp(p: number): number {
    return this.cached('parenExp', p, () => {
      const open = this.literal(p, '(');
      if (open === FAIL) return FAIL;
      const body = this.many1(this.ws0(open), (q) => this.node(q));
      if (body === FAIL) return FAIL;
      const close = this.literal(body, ')');
      return close === FAIL ? FAIL : this.ws0(close);
    });
  }

  private groupExp(p: number): number {
    return this.cached('groupExp', p, () => {
      const field = this.fieldExp(p);
      if (field !== FAIL) return this.ws0(field);
      return this.parenExp(p);
    });
  }

  private many0(p: number, item: (p: number) => number): number {
    for (let next = item(p); next !== FAIL && next !== p; next = item(p)) p = next;
    return p;
  }

  node(p: number): number {
    return this.cached('node', p, () => {
      const op = this.operatorExp(p);
      if (op !== FAIL) {
        const end = this.eof(op);
        if (end !== FAIL) return end;
        const left = this.groupExp(op);
        if (left !== FAIL)
          return this.many0(
            this.many0(left, (q) => this.operatorExp(q)),
            (q) => this.node(q),
          );
        const right = this.node(op);
        if (right !== FAIL) return right;
      }
      const left = this.groupExp(p);
      if (left === FAIL) return FAIL;
      return this.many0(
        this.many0(left, (q) => this.operatorExp(q)),
        (q) => this.node(q),
      );
    });
  }

  /** The start rule, which must consume the whole input. */
  accepts(): boolean {
    const lead = this.ws0(0);
    const nodes = this.many1(lead, (q) => this.node(q));
    if (nodes === FAIL) return lead === this.s.length;
    if (nodes === this.s.length) return true;
    this.fail(nodes);
    return false;
  }
}

export function luceneSyntaxError(query: string): string | undefined {
  const input = encodeSpecialTokens(query);
  const recogniser = new Recogniser(input);
  if (recogniser.accepts()) return undefined;
  const at = recogniser.farthest;
  const found = at >= input.length ? 'end of input' : JSON.stringify(input[at]);
  return `Expected a Lucene term, field, group or operator but ${found} found.`;
}
