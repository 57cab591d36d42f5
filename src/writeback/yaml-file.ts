/**
 * One manifest file as `obsync pull` edits it: its text parsed with positions (as the loader
 * parses it), its documents found by the resources they became, and its new text made from field
 * edits and removed documents — then parsed again and checked: every document that was edited
 * must read as the edits say, every other one exactly as before, or the file is left alone.
 */
import { isDeepStrictEqual } from 'node:util';
import { LineCounter, parseAllDocuments, type Document } from 'yaml';
import type { Json } from '../core/wire.js';
import { LIMITS } from '../manifests/parse.js';
import { documentStart, positionAt } from '../manifests/positions.js';
import { applyEdits, type Edit, type Path } from './edits.js';
import { spliceEdits } from './yaml-splice.js';
import { applySplices, lineStart, type Splice } from './yaml-text.js';

export interface YamlFile {
  path: string;
  text: string;
  docs: Document.Parsed[];
  lineCounter: LineCounter;
}

export function parseFile(path: string, text: string): YamlFile | undefined {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
  if ('empty' in docs) return { path, text, docs: [], lineCounter };
  if (docs.some((d) => d.errors.length > 0)) return undefined;
  return { path, text, docs, lineCounter };
}

/** The value of a document as written (no interpolation), or undefined when it cannot be read (an alias bomb). */
export function documentValue(doc: Document): Json | undefined {
  try {
    return doc.toJS({ maxAliasCount: LIMITS.aliases }) as Json;
  } catch {
    return undefined;
  }
}

/** The index of the document that starts at `line` and declares kind/name. */
export function documentAt(file: YamlFile, line: number, kind: string, name: string): number | undefined {
  const i = file.docs.findIndex(
    (d) =>
      d.contents !== null &&
      documentStart(d, file.lineCounter).line === line &&
      d.get('kind') === kind &&
      d.getIn(['metadata', 'name']) === name,
  );
  return i < 0 ? undefined : i;
}

/** 1-based line of a path in a document (its nearest existing ancestor when it does not exist). */
export function lineAt(file: YamlFile, index: number, path: Path): number {
  const doc = file.docs[index];
  return doc ? positionAt(doc, file.lineCounter, path).line : 1;
}

export type FileEdit = { text: string | null } | { error: string; document: number; path?: Path };

/**
 * The file's new text with `edits` made (by document index) and the `removed` documents taken
 * out; null when no document is left (the file goes). Values in the edits are as written (escaped).
 * Each edited document's new text (from its `---` to the next) is parsed again on its own and must
 * read exactly as the edits say; the splices of a document never leave it, so every other document
 * keeps its bytes (a file of thousands of documents is not parsed again whole).
 */
export function editFile(file: YamlFile, edits: ReadonlyMap<number, readonly Edit[]>, removed: ReadonlySet<number>): FileEdit {
  const splices: Splice[] = [];
  let kept = 0;
  for (const [i, doc] of file.docs.entries()) {
    if (removed.has(i)) {
      splices.push(documentRegion(file, i));
      continue;
    }
    if (doc.contents !== null) kept += 1;
    const own = edits.get(i) ?? [];
    if (own.length === 0) continue;
    const value = documentValue(doc);
    if (value === undefined) return { error: 'the document cannot be read', document: i };
    const made = spliceEdits(file.text, doc, own);
    if (!made.ok) return { error: made.reason, document: i, path: made.path };
    const checked = checkDocument(file, i, made.splices, applyEdits(value, own));
    if (checked !== undefined) return { error: checked, document: i };
    splices.push(...made.splices);
  }
  const text = applySplices(file.text, splices);
  if (text === undefined) return { error: 'two edits overlap', document: 0 };
  return { text: kept === 0 && text.replace(/^[ \t]*(#.*|---|\.\.\.)?\r?$/gm, '').trim() === '' ? null : text };
}

/** Why the document's new text is not right (undefined: it reads as `wanted`, and its splices stay inside it). */
function checkDocument(file: YamlFile, index: number, splices: readonly Splice[], wanted: Json): string | undefined {
  const { start, end } = documentRegion(file, index);
  if (splices.some((s) => s.start < start || s.end > end)) return 'an edit reaches outside its document';
  const text = applySplices(
    file.text.slice(start, end),
    splices.map((s) => ({ start: s.start - start, end: s.end - start, text: s.text })),
  );
  if (text === undefined) return 'two edits overlap';
  const again = parseFile(file.path, text);
  if (!again) return 'the edited text does not parse';
  const docs = again.docs.filter((d) => d.contents !== null);
  const [doc] = docs;
  if (docs.length !== 1 || !doc) return 'the edited text has another number of documents';
  return isDeepStrictEqual(documentValue(doc), wanted) ? undefined : 'the edited document does not read as intended';
}

/**
 * The text of one document: from its `---` (or its first line) to the next document's `---` (or
 * the end). Comment lines above a first document without `---` stay (they may be the file's own).
 */
function documentRegion(file: YamlFile, index: number): Splice {
  const doc = file.docs[index];
  const next = file.docs[index + 1];
  const text = file.text;
  const marked = doc?.range && text.startsWith('---', doc.range[0]) ? doc.range[0] : undefined;
  const start = lineStart(text, marked ?? doc?.contents?.range?.[0] ?? 0);
  const end = next?.range ? lineStart(text, next.range[0]) : text.length;
  return { start, end, text: '' };
}
