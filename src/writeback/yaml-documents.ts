/**
 * The documents of a manifest file, parsed only when asked for. Pull edits a few documents of
 * files that may hold thousands: the file is cut at its `---` lines (a document marker at the
 * start of a line ends whatever came before it, block scalars and flow collections included, as
 * YAML 1.2 and the yaml library read it) and each piece is parsed on its own when one of its
 * documents is needed. A file with `...` or a directive (`%YAML`) is parsed whole. A piece that
 * does not read as exactly one document is not editable (pull then names it as a conflict).
 */
import { LineCounter, parseAllDocuments, type Document } from 'yaml';

/**
 * A parsed document and where it is: ranges and lines of `doc` are relative to `text`, which starts at `base` (line `lineBase` + 1) of the
 * file.
 */
export interface PlacedDocument {
  doc: Document.Parsed;
  text: string;
  base: number;
  lineBase: number;
  lineCounter: LineCounter;
  /** Where the document's region ends in the file (the next document's start, or the end). */
  end: number;
}

interface Piece {
  start: number;
  end: number;
  /** Lines before it. */
  lineBase: number;
  /** It holds something besides blank lines, comments and the marker. */
  content: boolean;
}

const MARKER = /^---(?=[ \t\r\n]|$)/;
const WHOLE = /^(\.\.\.|%)/m;

export class YamlDocuments {
  readonly #text: string;
  readonly #pieces: Piece[] | undefined;
  readonly #parsed = new Map<number, PlacedDocument | null>();
  readonly #whole: PlacedDocument[] | null | undefined;

  constructor(text: string) {
    this.#text = text;
    this.#pieces = WHOLE.test(text) ? undefined : pieces(text);
    this.#whole = this.#pieces ? undefined : parseWhole(text);
  }

  /** false: the text does not parse (a piece or the whole has errors). */
  get valid(): boolean {
    return this.#whole !== null;
  }

  get count(): number {
    return this.#whole ? this.#whole.length : (this.#pieces?.length ?? 0);
  }

  /** The document at `index`; undefined when there is none, or the file does not parse. */
  at(index: number): PlacedDocument | undefined {
    if (this.#whole !== undefined) return this.#whole?.[index];
    const piece = this.#pieces?.[index];
    if (!piece) return undefined;
    if (!this.#parsed.has(index)) this.#parsed.set(index, this.#parsePiece(piece));
    return this.#parsed.get(index) ?? undefined;
  }

  /** Whether the document holds anything (a null one counts for nothing when the file is emptied). */
  hasContent(index: number): boolean {
    if (this.#whole !== undefined) return this.#whole?.[index]?.doc.contents != null;
    return this.#pieces?.[index]?.content ?? false;
  }

  /** The index of the document whose piece holds `line` (1-based); every index in a file parsed whole. */
  candidates(line: number): number[] {
    if (this.#whole !== undefined) return (this.#whole ?? []).map((_, i) => i);
    const pieces = this.#pieces ?? [];
    let lo = 0;
    let hi = pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((pieces[mid]?.lineBase ?? 0) < line) lo = mid;
      else hi = mid - 1;
    }
    return pieces.length === 0 ? [] : [lo];
  }

  #parsePiece(piece: Piece): PlacedDocument | null {
    const text = this.#text.slice(piece.start, piece.end);
    const lineCounter = new LineCounter();
    const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
    if ('empty' in docs || docs.length !== 1) return null;
    const [doc] = docs;
    if (!doc || doc.errors.length > 0) return null;
    return { doc, text, base: piece.start, lineBase: piece.lineBase, lineCounter, end: piece.end };
  }
}

function parseWhole(text: string): PlacedDocument[] | null {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
  if ('empty' in docs) return [];
  if (docs.some((d) => d.errors.length > 0)) return null;
  return docs.map((doc, i) => ({
    doc,
    text,
    base: 0,
    lineBase: 0,
    lineCounter,
    end: docs[i + 1]?.range[0] ?? text.length,
  }));
}

/** The file cut before each `---` line; leading lines of nothing but comments go with the first marked piece. */
function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let start = 0;
  let lineBase = 0;
  let content = false;
  let marked = false;
  let offset = 0;
  let line = 0;
  while (offset < text.length) {
    const next = text.indexOf('\n', offset);
    const end = next < 0 ? text.length : next + 1;
    const body = text.slice(offset, end);
    const marker = MARKER.test(body);
    // Comment lines before the first marker belong to its document, as the parser reads them.
    if (marker && offset > start && (content || marked)) {
      out.push({ start, end: offset, lineBase, content });
      start = offset;
      lineBase = line;
      content = false;
    }
    if (marker) marked = true;
    const trimmed = (marker ? body.slice(3) : body).trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) content = true;
    offset = end;
    line += 1;
  }
  if (offset > start || out.length === 0) out.push({ start, end: text.length, lineBase, content });
  return out;
}
