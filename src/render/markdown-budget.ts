/**
 * Fitting a plan comment into GitHub's size limit: which blocks go in (essentials, then rows, then
 * details, shared fairly between targets), and the notice of what was left out.
 */
import { code } from './markdown-text.js';

/** Room kept for the notice of what was left out, per target (its fixed words, a target name, NAMES_ROOM). */
export const NOTICE_ROOM = 640;

/**
 * A piece of the comment: essentials always go in; table rows, details, then backtest charts while there is room.
 * A table's head is reserved like an essential and shown only above at least one row.
 */
export interface Block {
  text: string;
  kind: 'essential' | 'head' | 'row' | 'details' | 'chart';
  /** The object of a row or details block: named when it is left out. */
  address?: string;
}

/**
 * Which blocks fit: every essential, then the rows, then the details. Each of the last two is
 * shared fairly between the targets (a target needing less than an equal share leaves the rest to
 * the others), so a large first target never leaves the next with an empty table; what a target
 * cannot use of its share (blocks do not split) goes to the first blocks that still fit.
 */
export function choose(sections: readonly Block[][], budget: number): Set<number>[] {
  const chosen = sections.map(() => new Set<number>());
  let used = 0;
  const take = (t: number, i: number, b: Block) => {
    chosen[t]?.add(i);
    used += b.text.length;
  };
  sections.forEach((blocks, t) => blocks.forEach((b, i) => (b.kind === 'essential' || b.kind === 'head' ? take(t, i, b) : undefined)));
  for (const kind of ['row', 'details', 'chart'] as const) {
    const demands = sections.map((blocks) => blocks.reduce((n, b) => n + (b.kind === kind ? b.text.length : 0), 0));
    const shares = fairShares(demands, budget - used);
    sections.forEach((blocks, t) => {
      let spent = 0;
      blocks.forEach((b, i) => {
        if (b.kind !== kind || spent + b.text.length > (shares[t] ?? 0)) return;
        spent += b.text.length;
        take(t, i, b);
      });
    });
    sections.forEach((blocks, t) =>
      blocks.forEach((b, i) => (b.kind === kind && !chosen[t]?.has(i) && used + b.text.length <= budget ? take(t, i, b) : undefined)),
    );
  }
  return chosen;
}

/**
 * Max-min fair shares of `available` between `demands`: each gets what it needs if that is no
 * more than an equal share of what is left; the others split the rest equally.
 */
export function fairShares(demands: readonly number[], available: number): number[] {
  const shares = demands.map(() => 0);
  let left = Math.max(0, available);
  const open = demands.map((_, i) => i).sort((a, b) => (demands[a] ?? 0) - (demands[b] ?? 0));
  while (open.length > 0) {
    const equal = Math.floor(left / open.length);
    const smallest = open[0] ?? 0;
    const need = demands[smallest] ?? 0;
    if (need > equal) {
      // eslint-disable-next-line no-restricted-syntax -- an array by index
      for (const i of open) shares[i] = equal;
      break;
    }
    // eslint-disable-next-line no-restricted-syntax -- an array by index
    shares[smallest] = need;
    left -= need;
    open.shift();
  }
  return shares;
}

/** Room for the names of objects left out of a table (the rest are counted). */
const NAMES_ROOM = 200;

export function omissionNotice(blocks: readonly Block[], taken: ReadonlySet<number>, target: string | undefined): string {
  const left = (kind: Block['kind']) => blocks.filter((b, i) => b.kind === kind && !taken.has(i));
  const rows = left('row');
  const details = left('details').length;
  const charts = left('chart').length;
  if (rows.length + details + charts === 0) return '';
  const what = [
    rows.length > 0 ? `${rows.length} object(s) left out of the table${names(rows.map((b) => b.address ?? '?'))}` : '',
    details > 0 ? `the details of ${details} object(s) not shown` : '',
    charts > 0 ? `${charts} backtest chart(s) dropped` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const where = target === undefined ? '' : ` in target ${code(target)}`;
  return (
    `\n> [!NOTE]\n> **Truncated${where}:** ${what}: the plan is too large for one comment. The JSON plan ` +
    `(\`obsync plan --out plan.json\`) and the text plan have everything.\n\n`
  );
}

/** ` (`a`, `b` and 3 more)`: as many names as fit in NAMES_ROOM; none when not even the first fits. */
function names(addresses: readonly string[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const a of addresses) {
    const item = code(a);
    if (length + item.length > NAMES_ROOM) break;
    shown.push(item);
    length += item.length + 2;
  }
  const more = addresses.length - shown.length;
  return shown.length === 0 ? '' : ` (${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''})`;
}
