/**
 * One manifest file as `obsync pull` edits it: its text parsed with positions (as the loader
 * parses it), its documents found by the resources they became, and its new text made from field
 * edits and removed documents — then parsed again and checked: every document that was edited
 * must read as the edits say, every other one exactly as before, or the file is left alone.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Document } from 'yaml';
import type { Json } from '../core/wire.js';
import { LIMITS } from '../manifests/parse.js';
import { documentStart, positionAt } from '../manifests/positions.js';
import { applyEdits, type Edit, type Path } from './edits.js';
import { YamlDocuments } from './yaml-documents.js';
import { spliceEdits } from './yaml-splice.js';
import { applySplices, lineStart, type Splice } from './yaml-text.js';

export interface YamlFile {
  path: string;
  text: string;
  /** Its documents, each parsed when first asked for. */
  documents: YamlDocuments;
}

export function parseFile(path: string, text: string): YamlFile | undefined {
  const documents = new YamlDocuments(text);
  return documents.valid ? { path, text, documents } : undefined;
}

/** The parsed document at `index` (undefined when it cannot be read). */
export function documentOf(file: YamlFile, index: number): Document.Parsed | undefined {
  return file.documents.at(index)?.doc;
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
  return file.documents.candidates(line).find((i) => {
    const placed = file.documents.at(i);
    const d = placed?.doc;
    return (
      placed !== undefined &&
      d?.contents != null &&
      documentStart(d, placed.lineCounter).line + placed.lineBase === line &&
      d.get('kind') === kind &&
      d.getIn(['metadata', 'name']) === name
    );
  });
}

/** 1-based line of a path in a document (its nearest existing ancestor when it does not exist). */
export function lineAt(file: YamlFile, index: number, path: Path): number {
  const placed = file.documents.at(index);
  return placed ? positionAt(placed.doc, placed.lineCounter, path).line + placed.lineBase : 1;
}

export type FileEdit = { text: string | null } | { error: string; document: number; path?: Path };

/**
 * The file's new text with `edits` made (by document index) and the `removed` documents taken
 * out; null when no document is left (the file goes). Values in the edits are as written (escaped).
 * Each edited document's new text (from its `---` to the next) is parsed again on its own and must
 * read exactly as the edits say; the splices of a document never leave it, so every other document
 * keeps its bytes (a file of thousands of documents is not parsed again whole, nor parsed at all
 * but for the documents edited).
 */
export function editFile(file: YamlFile, edits: ReadonlyMap<number, readonly Edit[]>, removed: ReadonlySet<number>): FileEdit {
  const splices: Splice[] = [];
  let kept = 0;
  for (let i = 0; i < file.documents.count; i++) {
    if (removed.has(i)) {
      const region = documentRegion(file, i);
      if (!region) return { error: 'the document cannot be read', document: i };
      splices.push(region);
      continue;
    }
    if (file.documents.hasContent(i)) kept += 1;
    const own = edits.get(i) ?? [];
    if (own.length === 0) continue;
    const placed = file.documents.at(i);
    const value = placed ? documentValue(placed.doc) : undefined;
    if (!placed || value === undefined) return { error: 'the document cannot be read', document: i };
    const made = spliceEdits(placed.text, placed.doc, own);
    if (!made.ok) return { error: made.reason, document: i, path: made.path };
    const shifted = made.splices.map((x) => ({ ...x, start: x.start + placed.base, end: x.end + placed.base }));
    const checked = checkDocument(file, i, shifted, applyEdits(value, own));
    if (checked !== undefined) return { error: checked, document: i };
    splices.push(...shifted);
  }
  const text = applySplices(file.text, splices);
  if (text === undefined) return { error: 'two edits overlap', document: 0 };
  return { text: kept === 0 && text.replace(/^[ \t]*(#.*|---|\.\.\.)?\r?$/gm, '').trim() === '' ? null : text };
}

/** Why the document's new text is not right (undefined: it reads as `wanted`, and its splices stay inside it). */
function checkDocument(file: YamlFile, index: number, splices: readonly Splice[], wanted: Json): string | undefined {
  const region = documentRegion(file, index);
  if (!region) return 'the document cannot be read';
  const { start, end } = region;
  if (splices.some((s) => s.start < start || s.end > end)) return 'an edit reaches outside its document';
  const text = applySplices(
    file.text.slice(start, end),
    splices.map((s) => ({ start: s.start - start, end: s.end - start, text: s.text })),
  );
  if (text === undefined) return 'two edits overlap';
  const again = new YamlDocuments(text);
  const docs = Array.from({ length: again.count }, (_, i) => again.at(i)?.doc).filter((d) => d?.contents != null);
  const [doc] = docs;
  if (docs.length !== 1 || !doc) return 'the edited text does not parse, or has another number of documents';
  return isDeepStrictEqual(documentValue(doc), wanted) ? undefined : 'the edited document does not read as intended';
}

/**
 * The text of one document: from its `---` (or its first line) to the next document's `---` (or
 * the end). Comment lines above a first document without `---` stay (they may be the file's own).
 */
function documentRegion(file: YamlFile, index: number): Splice | undefined {
  const placed = file.documents.at(index);
  if (!placed) return undefined;
  const { doc, base } = placed;
  const text = file.text;
  const own = doc.range[0] + base;
  const marked = text.startsWith('---', own) ? own : undefined;
  const start = lineStart(text, marked ?? (doc.contents?.range ? doc.contents.range[0] + base : base));
  const end = placed.end >= text.length ? text.length : lineStart(text, placed.end);
  return { start, end, text: '' };
}
