/**
 * Field edits (./edits.ts) as text changes of one YAML document, made at the ranges yaml's parser
 * gives every node (`node.range`), never by printing the document again: a changed scalar is
 * replaced where it stands (in its quoting style when the new value allows), a new map entry or
 * list item is a few lines inserted at the indentation of its neighbours, a removed one is its own
 * lines taken out; flow collections (`{x: 0, y: 0}`) are edited inside their braces. Whatever is
 * not edited — comments, key order, blank lines, anchors — keeps its bytes. An edit this module
 * cannot place safely is refused (the caller reports it; nothing is written).
 */
import { isAlias, isMap, isPair, isScalar, isSeq, Scalar, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import type { Json } from '../core/wire.js';
import type { Edit, Path } from './edits.js';
import {
  isCollection,
  renderBlock,
  renderFlow,
  renderItem,
  renderKey,
  renderLiteral,
  renderPairValue,
  renderScalar,
} from './yaml-render.js';
import { afterLine, column, layoutOf, lineBreakAt, lineEnding, lineStart, linesAt, type Splice } from './yaml-text.js';
import type { Layout } from './yaml-render.js';

export type SpliceResult = { ok: true; splices: Splice[] } | { ok: false; path: Path; reason: string };

type Collection = YAMLMap | YAMLSeq;

interface Located {
  node: Node | null;
  parent: Collection | null;
  pair: Pair | null;
}

class Refusal extends Error {}

/** The text changes that make `edits` in `doc` (parsed from `text`, whose offsets its ranges are). */
export function spliceEdits(text: string, doc: Document, edits: readonly Edit[]): SpliceResult {
  const ctx = { text, eol: lineEnding(text), layout: layoutOf(text, doc) };
  const splices: Splice[] = [];
  for (const edit of edits) {
    try {
      splices.push(...spliceOne(ctx, doc, edit));
    } catch (err) {
      if (err instanceof Refusal) return { ok: false, path: edit.path, reason: err.message };
      throw err;
    }
  }
  return { ok: true, splices };
}

interface Ctx {
  text: string;
  eol: string;
  layout: Layout;
}

function spliceOne(ctx: Ctx, doc: Document, edit: Edit): Splice[] {
  if (edit.op === 'set') return setValue(ctx, locate(doc, edit.path), edit.value);
  if (edit.op === 'add') return addEntry(ctx, collectionAt(doc, edit.path), edit.key, edit.value, edit.after);
  if (edit.op === 'insert') return insertItem(ctx, collectionAt(doc, edit.path), edit.index, edit.value);
  const parent = collectionAt(doc, edit.path.slice(0, -1));
  const last = edit.path.at(-1);
  return removeEntry(ctx, parent, last ?? '');
}

/** The node at a path; a path through an alias is refused (the caller reports anchors and aliases before this). */
export function locate(doc: Document, path: Path): Located {
  let node: unknown = doc.contents;
  let parent: Collection | null = null;
  let pair: Pair | null = null;
  for (const seg of path) {
    if (isAlias(node)) throw new Refusal('the value is an alias of an anchor');
    if (isMap(node)) {
      const found = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!found) throw new Refusal('no such field');
      parent = node;
      pair = found;
      node = found.value;
    } else if (isSeq(node) && typeof seg === 'number' && seg < node.items.length) {
      parent = node;
      pair = null;
      node = node.items[seg];
    } else throw new Refusal('no such field');
  }
  return { node: (node ?? null) as Node | null, parent, pair };
}

function collectionAt(doc: Document, path: Path): Collection {
  const { node } = locate(doc, path);
  if (isMap(node) || isSeq(node)) return node;
  throw new Refusal('not a map or list');
}

function rangeOf(node: Node | null | undefined): [number, number, number] {
  const range = node?.range;
  if (!range) throw new Refusal('no position for the value');
  return range;
}

function isBlock(node: Node | null): node is Collection {
  return (isMap(node) || isSeq(node)) && node.flow !== true;
}

function setValue(ctx: Ctx, at: Located, value: Json): Splice[] {
  const { text, eol } = ctx;
  const { node, parent, pair } = at;
  if (isAlias(node)) throw new Refusal('the value is an alias of an anchor');
  const inFlow = parent !== null && parent.flow === true;
  if (isBlock(node)) {
    const [start, end] = rangeOf(node);
    if (isCollection(value) && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0)) {
      const lines = renderBlock(value, column(text, start), ctx.layout);
      const body = lines.map((l, i) => (i === 0 ? l.trimStart() : l)).join(eol);
      return [{ start, end, text: text[end - 1] === '\n' ? `${body}${eol}` : body }];
    }
    // A block collection becomes a scalar or an empty one: it moves up onto the key's (or dash's) line.
    const inline = isCollection(value) ? renderFlow(value) : renderScalar(value, 'block');
    const from = pair ? rangeOf(pair.key as Node)[1] : start;
    return [{ start: from, end, text: `${pair ? ': ' : ''}${inline}${text[end - 1] === '\n' ? eol : ''}` }];
  }
  const [start, end] = node ? rangeOf(node) : rangeOf(pair?.key as Node);
  if (!node) return [{ start: end, end, text: ` ${inline(value, inFlow, undefined)}` }];
  if (isScalar(node) && (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED))
    return [{ start, end, text: blockScalar(ctx, node, start, end, value) }];
  if (start === end) return [{ start, end, text: ` ${inline(value, inFlow, undefined)}` }];
  if (!inFlow && pair && isCollection(value) && nested(value)) {
    // A scalar or flow value that becomes a collection of collections: laid out as a block under its key.
    const keyEnd = rangeOf(pair.key as Node)[1];
    const keyColumn = column(text, rangeOf(pair.key as Node)[0]);
    return [{ start: keyEnd, end: lineBreakAt(text, end), text: `:${renderPairValue(value, keyColumn, ctx.layout, eol)}` }];
  }
  return [{ start, end, text: inline(value, inFlow, isScalar(node) ? node : undefined) }];
}

function inline(value: Json, inFlow: boolean, like: Scalar | undefined): string {
  return isCollection(value) ? renderFlow(value) : renderScalar(value, inFlow ? 'flow' : 'block', like);
}

function nested(value: Json[] | { [k: string]: Json }): boolean {
  return Object.values(value).some((v) => isCollection(v));
}

/** A block scalar's new text, a literal block where the value allows (its range ends with the line break). */
function blockScalar(ctx: Ctx, node: Scalar, start: number, end: number, value: Json): string {
  const ended = ctx.text[end - 1] === '\n' ? ctx.eol : '';
  if (typeof value !== 'string') return `${renderScalar(value, 'block')}${ended}`;
  const firstContent = afterLine(ctx.text, start);
  const content = /^[ ]*/.exec(ctx.text.slice(firstContent, end))?.[0].length ?? 0;
  const header = /^[ ]*/.exec(ctx.text.slice(lineStart(ctx.text, start)))?.[0].length ?? 0;
  const indent = content > header ? content : header + ctx.layout.unit;
  const literal = ended === '' ? undefined : renderLiteral(value, indent, ctx.eol);
  return literal ?? `${renderScalar(value, 'block', node)}${ended}`;
}

function addEntry(ctx: Ctx, map: Collection, key: string, value: Json, after: string | undefined): Splice[] {
  if (!isMap(map)) throw new Refusal('not a map');
  const { text, eol } = ctx;
  const anchor = (after === undefined ? undefined : map.items.find((p) => isScalar(p.key) && p.key.value === after)) ?? map.items.at(-1);
  if (map.flow === true) {
    const entry = `${renderKey(key)}: ${inline(value, true, undefined)}`;
    if (!anchor) return [{ start: rangeOf(map)[0] + 1, end: rangeOf(map)[0] + 1, text: entry }];
    const at = entryEnd(anchor);
    return [{ start: at, end: at, text: `, ${entry}` }];
  }
  if (!anchor) throw new Refusal('an empty map has no indentation to follow');
  const keyColumn = column(text, rangeOf(map)[0]);
  const head = `${' '.repeat(keyColumn)}${renderKey(key)}:${renderPairValue(value, keyColumn, ctx.layout, eol)}`;
  return [linesAt(text, afterLine(text, entryEnd(anchor)), head.split(eol), eol)];
}

/** Where a map entry's or list item's value ends (its key, for an entry without a value). */
function entryEnd(item: Pair | Node): number {
  if (isPair(item)) return item.value && (item.value as Node).range ? rangeOf(item.value as Node)[1] : rangeOf(item.key as Node)[1];
  return rangeOf(item)[1];
}

function removeEntry(ctx: Ctx, parent: Collection, last: string | number): Splice[] {
  const { text } = ctx;
  const items = parent.items as (Pair | Node)[];
  const index = isMap(parent)
    ? parent.items.findIndex((p) => isScalar(p.key) && String(p.key.value) === String(last))
    : typeof last === 'number'
      ? last
      : -1;
  const item = items[index];
  if (!item) throw new Refusal('no such field');
  const startOf = (x: Pair | Node) => rangeOf((isPair(x) ? x.key : x) as Node)[0];
  if (parent.flow === true) {
    const next = items[index + 1];
    const previous = items[index - 1];
    if (next) return [{ start: startOf(item), end: startOf(next), text: '' }];
    if (previous) return [{ start: entryEnd(previous), end: entryEnd(item), text: '' }];
    return [{ start: startOf(item), end: entryEnd(item), text: '' }];
  }
  if (items.length === 1) throw new Refusal('the last entry of a block collection is replaced, not removed');
  const begin = isSeq(parent) ? dashOf(text, startOf(item)) : startOf(item);
  const from = lineStart(text, begin);
  if (text.slice(from, begin).trim() === '') return [{ start: from, end: afterLine(text, entryEnd(item)), text: '' }];
  // The first entry of a list item's map shares the dash's line: the entry up to the next one goes.
  const next = items[index + 1];
  if (!next || isSeq(parent)) throw new Refusal('the entry shares its line with another');
  return [{ start: begin, end: startOf(next), text: '' }];
}

/** The `-` of a block list item whose value starts at `start`. */
function dashOf(text: string, start: number): number {
  let i = start - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i -= 1;
  if (text[i] !== '-') throw new Refusal('a list item without its dash on its line');
  return i;
}

function insertItem(ctx: Ctx, seq: Collection, index: number, value: Json): Splice[] {
  if (!isSeq(seq)) throw new Refusal('not a list');
  const { text, eol } = ctx;
  const items = seq.items as Node[];
  if (seq.flow === true) {
    const rendered = inline(value, true, undefined);
    const before = items[index];
    if (items.length === 0) return [{ start: rangeOf(seq)[0] + 1, end: rangeOf(seq)[0] + 1, text: rendered }];
    if (before) return [{ start: rangeOf(before)[0], end: rangeOf(before)[0], text: `${rendered}, ` }];
    const at = rangeOf(items[items.length - 1])[1];
    return [{ start: at, end: at, text: `, ${rendered}` }];
  }
  const first = items[0];
  if (!first) throw new Refusal('an empty list has no indentation to follow');
  const dashColumn = column(text, dashOf(text, rangeOf(first)[0]));
  const lines = renderItem(value, dashColumn, ctx.layout);
  const before = items[index];
  const at = before ? lineStart(text, dashOf(text, rangeOf(before)[0])) : afterLine(text, rangeOf(items[items.length - 1])[1]);
  return [linesAt(text, at, lines, eol)];
}
