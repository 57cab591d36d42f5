/**
 * Maps a path inside a YAML document (`['spec','tiles',2,'w']`) to a line and column, using the
 * CST ranges of the parsed nodes and a LineCounter (offsets are file-wide, so one counter serves
 * a multi-document file). A path that does not exist (a missing key) points at the nearest
 * existing ancestor.
 */
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export interface Position {
  line: number;
  col: number;
}

function keyMatches(key: unknown, seg: PropertyKey): boolean {
  const k = isScalar(key) ? key.value : key;
  return String(k) === String(seg);
}

/** Offset of the deepest node on `path`: the key of a map entry, or the item of a sequence. */
export function offsetAt(doc: Document, path: readonly PropertyKey[]): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyMatches(p.key, seg));
      if (!pair) break;
      offset = rangeStart(pair.key) ?? rangeStart(pair.value) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item: unknown = node.items[seg];
      if (item === undefined) break;
      offset = rangeStart(item) ?? offset;
      node = item;
    } else break;
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}

export function positionAt(doc: Document, lc: LineCounter, path: readonly PropertyKey[]): Position {
  const { line, col } = lc.linePos(offsetAt(doc, path));
  return { line, col };
}

/** Where a document starts (its first content node, or the `---` marker when empty). */
export function documentStart(doc: Document, lc: LineCounter): Position {
  const offset = rangeStart(doc.contents) ?? doc.range?.[0] ?? 0;
  const { line, col } = lc.linePos(offset);
  return { line, col };
}
