/**
 * YAML merge keys (`<<: *defaults`, `<<: [*a, *b]`) in manifests and obsync.yaml, expanded in the
 * parsed document itself: each merged key becomes a copy of the pair it comes from. The copy keeps
 * the position of the text that wrote it, so an error in a merged value names that line, and every
 * later step (interpolation, the schema, unknown keys, positions, sensitive fields) sees a plain
 * map under its real path. A key written in the map wins over a merged one, and an earlier source
 * over a later one (the rule of YAML 1.1, where merge keys come from). Copies are counted, so
 * merges cannot blow a small file up (as the alias limit does for aliases).
 */
import {
  isAlias,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  Scalar,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';

/** Nodes that merge keys may copy into one document. */
export const MERGED_NODES_LIMIT = 10_000;

export interface MergeProblem {
  /** Where the merge key that cannot be expanded is. */
  offset: number;
  message: string;
}

class MergeRefused extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Expands every merge key of the document in place; a problem when one cannot be (it names what `<<` takes). */
export function expandMergeKeys(doc: Document): MergeProblem | undefined {
  try {
    new Expansion().node(doc.contents);
    return undefined;
  } catch (e) {
    if (e instanceof MergeRefused) return { offset: e.offset, message: e.message };
    throw e;
  }
}

function isMergeKey(key: unknown): boolean {
  // Only a plain `<<` merges: a quoted '<<' is an ordinary key.
  return isScalar(key) && key.value === '<<' && (key.type === undefined || key.type === Scalar.PLAIN);
}

function keyOf(pair: Pair): unknown {
  return isScalar(pair.key) ? String(pair.key.value) : pair.key;
}

function startOf(node: unknown): number {
  return isNode(node) ? (node.range?.[0] ?? 0) : 0;
}

class Expansion {
  /** Anchors seen so far, in document order (an alias refers to the last one before it). */
  readonly #anchors = new Map<string, Node>();
  /** Maps being expanded: a merge of one of them would include itself. */
  readonly #open = new Set<Node>();
  #copied = 0;

  node(node: unknown): void {
    if (!isNode(node) || isAlias(node)) return;
    if (node.anchor) this.#anchors.set(node.anchor, node);
    if (isSeq(node)) for (const item of node.items) this.node(item);
    else if (isMap(node)) this.#map(node);
  }

  #map(map: YAMLMap<unknown, unknown>): void {
    this.#open.add(map);
    const merges = new Map<Pair, YAMLMap<unknown, unknown>[]>();
    for (const pair of map.items) {
      this.node(pair.key);
      this.node(pair.value);
      if (isMergeKey(pair.key)) merges.set(pair, this.#sources(pair));
    }
    this.#open.delete(map);
    if (merges.size === 0) return;
    const taken = new Set(map.items.filter((p) => !isMergeKey(p.key)).map(keyOf));
    const items: Pair<unknown, unknown>[] = [];
    for (const pair of map.items) {
      const sources = merges.get(pair);
      if (sources === undefined) {
        items.push(pair);
        continue;
      }
      for (const source of sources)
        for (const merged of source.items) {
          const key = keyOf(merged);
          if (taken.has(key)) continue;
          taken.add(key);
          items.push(this.#copy(merged, pair));
        }
    }
    map.items = items;
  }

  /** The maps a merge key takes: a map, an alias of one, or a list of those. */
  #sources(pair: Pair): YAMLMap<unknown, unknown>[] {
    const value = pair.value;
    const listed = isSeq(value) ? value.items : [value];
    return listed.map((item) => {
      const source = isAlias(item) ? this.#anchors.get(item.source) : item;
      const at = startOf(item) || startOf(pair.key);
      if (!isMap(source))
        throw new MergeRefused(
          at,
          `a merge key (<<) takes a map, an alias of one (<<: *defaults) or a list of them (<<: [*a, *b]); ` +
            `${isAlias(item) && source === undefined ? `*${item.source} is not defined before it` : 'this is not a map'}`,
        );
      if (this.#open.has(source))
        throw new MergeRefused(at, 'a merge key (<<) merges a map into itself (the alias names a map that contains it)');
      return source;
    });
  }

  /** A merged pair as its own nodes (positions kept, anchors dropped: the original keeps them). */
  #copy(pair: Pair<unknown, unknown>, at: Pair): Pair<unknown, unknown> {
    const copy = pair.clone();
    this.#copied += unanchored(copy.key) + unanchored(copy.value);
    if (this.#copied > MERGED_NODES_LIMIT)
      throw new MergeRefused(
        startOf(at.key),
        `merge keys (<<) copy more than ${MERGED_NODES_LIMIT} values into this document; merge fewer or smaller maps`,
      );
    return copy;
  }
}

/** Drops the anchors of a copied node and what it holds; the number of nodes. */
function unanchored(node: unknown): number {
  if (isPair(node)) return unanchored(node.key) + unanchored(node.value);
  if (!isNode(node)) return 0;
  if (node.anchor) delete node.anchor;
  let count = 1;
  if (isCollection(node)) for (const item of node.items) count += unanchored(item);
  return count;
}
