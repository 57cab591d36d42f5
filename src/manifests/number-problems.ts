import type { LineCounter } from 'yaml';
import { isMap, isPair, isScalar, isSeq, type Document } from 'yaml';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';

/**
 * Numbers that would change on the way into JavaScript: out of range (`1e400`, `.inf`, `.nan`)
 * or integers beyond 2^53 (rounded). `hidden` paths (sensitive fields) are named without the value.
 */
export function numberProblems(
  file: string,
  doc: Document,
  lc: LineCounter,
  hidden: (path: readonly PropertyKey[]) => boolean,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (node: unknown, path: PropertyKey[]): void => {
    if (isScalar(node)) {
      const problem = numberProblem(node.value, node.source);
      if (problem) {
        const pos = lc.linePos(node.range?.[0] ?? 0);
        const shown = hidden(path) ? 'this number (value not shown: sensitive field)' : `the number ${node.source || String(node.value)}`;
        out.push({
          severity: 'error',
          code: 'number-out-of-range',
          message: `${shown} ${problem}`,
          file,
          line: pos.line,
          col: pos.col,
          path: formatPath(path),
        });
      }
    } else if (isMap(node)) {
      for (const pair of node.items)
        if (isPair(pair)) visit(pair.value, [...path, isScalar(pair.key) ? String(pair.key.value) : String(pair.key)]);
    } else if (isSeq(node)) node.items.forEach((item, i) => visit(item, [...path, i]));
  };
  visit(doc.contents, []);
  return out;
}

function numberProblem(value: unknown, source: string | undefined): string | undefined {
  if (typeof value === 'bigint') return 'is too large to keep exactly; quote it if it is text or an id';
  if (typeof value !== 'number') return undefined;
  if (Number.isNaN(value)) return 'is not a number (NaN is not accepted)';
  if (!Number.isFinite(value))
    return /inf/i.test(source ?? '') ? 'is infinite (not accepted)' : 'is out of range (it would be infinite); write a smaller number';
  if (Number.isInteger(value) && !Number.isSafeInteger(value) && /^[-+]?(0|[1-9][0-9_]*)$/.test(source ?? ''))
    return 'is too large to keep exactly (more than 2^53); quote it if it is text or an id';
  return undefined;
}
