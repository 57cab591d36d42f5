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
 */
export function editFile(file: YamlFile, edits: ReadonlyMap<number, readonly Edit[]>, removed: ReadonlySet<number>): FileEdit {
  const splices: Splice[] = [];
  const wanted: Json[] = [];
  for (const [i, doc] of file.docs.entries()) {
    if (removed.has(i)) {
      splices.push(documentRegion(file, i));
      continue;
    }
    if (doc.contents === null) continue;
    const value = documentValue(doc);
    if (value === undefined) return { error: 'the document cannot be read', document: i };
    const own = edits.get(i) ?? [];
    if (own.length > 0) {
      const made = spliceEdits(file.text, doc, own);
      if (!made.ok) return { error: made.reason, document: i, path: made.path };
      splices.push(...made.splices);
    }
    wanted.push(own.length > 0 ? applyEdits(value, own) : value);
  }
  const text = applySplices(file.text, splices);
  if (text === undefined) return { error: 'two edits overlap', document: 0 };
  const again = parseFile(file.path, text);
  if (!again) return { error: 'the edited text does not parse', document: 0 };
  const kept = again.docs.filter((d) => d.contents !== null);
  if (kept.length !== wanted.length) return { error: 'the edited text has another number of documents', document: 0 };
  for (const [i, doc] of kept.entries())
    if (!isDeepStrictEqual(documentValue(doc), wanted[i])) return { error: 'the edited document does not read as intended', document: i };
  return { text: kept.length === 0 && text.replace(/^[ \t]*(#.*|---|\.\.\.)?\r?$/gm, '').trim() === '' ? null : text };
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
