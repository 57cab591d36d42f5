/**
 * Reads one YAML file into documents with positions, under hard limits: 1 MiB per file, 500
 * documents, nesting depth 64, and alias expansion capped by yaml's maxAliasCount (a "billion
 * laughs" file fails instead of eating memory). `parseAllDocuments` never throws; `toJS` can.
 * Numbers that JavaScript cannot hold (`1e400` becomes Infinity, 2^64 loses digits) are errors
 * at their position, never a silently different value. Merge keys (`<<: *defaults`) are expanded
 * in the document (./merge-keys.ts).
 */
import { isCollection, isPair, isScalar, LineCounter, Parser, parseAllDocuments, type CST, type Document } from 'yaml';
import type { Diagnostic } from '../core/diagnostics.js';
import { documentStart, type Position } from './positions.js';
import { expandMergeKeys } from './merge-keys.js';
import { explainYamlErrors } from './yaml-errors.js';

export const LIMITS = { fileBytes: 1024 * 1024, documents: 500, depth: 64, aliases: 100 } as const;

export interface ParsedFile {
  docs: Document[];
  lineCounter: LineCounter;
  diagnostics: Diagnostic[];
  /** What the documents that failed to parse seem to declare (as far as their text can be read). */
  failed?: FailedDocument[];
}

/** A document that did not load: its kind and name as written (when readable), for follow-on errors. */
export interface FailedDocument {
  file: string;
  line: number;
  kind?: string;
  name?: string;
  /** It failed only for want of unset values (validate --allow-missing-env): a reference to it is not checked. */
  unchecked?: true;
}

/** The kind and metadata.name a document states, read loosely (a document with errors may still say them). */
export function statedIdentity(file: string, doc: Document, lc: LineCounter): FailedDocument {
  const kind: unknown = doc.get('kind');
  const name: unknown = doc.getIn(['metadata', 'name']);
  return {
    file,
    line: documentStart(doc, lc).line,
    ...(typeof kind === 'string' ? { kind } : {}),
    ...(typeof name === 'string' ? { name } : {}),
  };
}

function err(file: string, code: string, message: string, pos: Position = { line: 1, col: 1 }): Diagnostic {
  return { severity: 'error', code, message, file, line: pos.line, col: pos.col };
}

export function parseYamlFile(file: string, text: string): ParsedFile {
  const lineCounter = new LineCounter();
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.fileBytes) {
    return {
      docs: [],
      lineCounter,
      diagnostics: [err(file, 'limit', `file is ${bytes} bytes; the limit is ${LIMITS.fileBytes} (1 MiB) — split it into several files`)],
    };
  }
  // The composer recurses per level and overflows the stack on extreme nesting; after that,
  // V8 can crash outright on the next deep parse (a daemon re-reads every run). Such a file is
  // refused from the (iterative) CST before it is composed.
  const extreme = mayNestDeeply(text) ? extremeNesting(text) : undefined;
  if (extreme !== undefined)
    return { docs: [], lineCounter, diagnostics: [err(file, 'limit', `nesting deeper than ${LIMITS.depth} levels`, extreme)] };
  const all = parseAllDocuments(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if ('empty' in all) return { docs: [], lineCounter, diagnostics: [] };
  if (all.length > LIMITS.documents) {
    return {
      docs: [],
      lineCounter,
      diagnostics: [
        err(file, 'limit', `file has ${all.length} documents; the limit is ${LIMITS.documents} — split it into ` + `several files`),
      ],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const docs: Document[] = [];
  const failed: FailedDocument[] = [];
  for (const doc of all) {
    const problems = explainYamlErrors(file, text, doc.errors, lineCounter);
    const merge = problems.length === 0 ? expandMergeKeys(doc) : undefined;
    if (merge) problems.push(err(file, 'yaml-merge', merge.message, lineCounter.linePos(merge.offset)));
    if (problems.length === 0) {
      const deep = tooDeep(doc.contents, 0);
      if (deep) problems.push(err(file, 'limit', `nesting deeper than ${LIMITS.depth} levels`, lineCounter.linePos(deep)));
    }
    diagnostics.push(...problems);
    if (problems.length === 0 && !isEmpty(doc)) docs.push(doc);
    else if (problems.length > 0) failed.push(statedIdentity(file, doc, lineCounter));
  }
  return { docs, lineCounter, diagnostics, failed };
}

/** Nesting the composer takes without trouble: anything below these bounds cannot reach it. */
const SAFE = { flowDepth: 200, indent: 100, dashes: 50 };

/** Nesting checked on the CST: deeper than this is refused before composing. */
const EXTREME_DEPTH = 256;

/** A cheap bound on the text: false when no nesting beyond a few hundred levels is possible. */
function mayNestDeeply(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) {
      if (++depth >= SAFE.flowDepth) return true; // [ {
    } else if ((c === 93 || c === 125) && depth > 0) depth -= 1; // ] }
  }
  return /^[ \t]{100,}\S/m.test(text) || /(?:-[ \t]+){50,}/.test(text);
}

/** Where the first collection nested LIMITS.depth deep starts, when the text nests beyond EXTREME_DEPTH. */
function extremeNesting(text: string): Position | undefined {
  const lines = new LineCounter();
  let firstTooDeep: number | undefined;
  let max = 0;
  for (const token of new Parser((offset) => lines.addNewLine(offset)).parse(text)) {
    const stack: { token: CST.Token | undefined; depth: number }[] = [{ token: token.type === 'document' ? token.value : token, depth: 0 }];
    while (stack.length > 0) {
      const { token: t, depth } = stack.pop() ?? { token: undefined, depth: 0 };
      if (!t || !('items' in t) || (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection')) continue;
      if (depth >= LIMITS.depth) firstTooDeep = Math.min(firstTooDeep ?? t.offset, t.offset);
      max = Math.max(max, depth);
      for (const item of t.items as { key?: CST.Token | null; value?: CST.Token }[]) {
        if (item.key) stack.push({ token: item.key, depth: depth + 1 });
        if (item.value) stack.push({ token: item.value, depth: depth + 1 });
      }
    }
  }
  return max > EXTREME_DEPTH && firstTooDeep !== undefined ? lines.linePos(firstTooDeep) : undefined;
}

/** `---` followed by nothing (or only comments) is an empty document: ignored. */
function isEmpty(doc: Document): boolean {
  return doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null && doc.contents.source === '');
}

/** Offset of the first node nested deeper than the limit, if any. */
function tooDeep(node: unknown, depth: number): number | undefined {
  if (!isCollection(node)) return undefined;
  if (depth >= LIMITS.depth) return node.range?.[0] ?? 0;
  for (const item of node.items as unknown[]) {
    const child = isPair(item) ? item.value : item;
    const found = tooDeep(child, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The plain JS value of a document; alias bombs and other conversion failures become diagnostics. */
export function documentValue(file: string, doc: Document, lc: LineCounter): { value?: unknown; diagnostic?: Diagnostic } {
  try {
    return { value: doc.toJS({ maxAliasCount: LIMITS.aliases }) as unknown };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    const isAlias = /alias/i.test(reason);
    const message = isAlias ? `too many alias expansions (limit ${LIMITS.aliases}): ${reason}` : `cannot read document: ${reason}`;
    return { diagnostic: err(file, isAlias ? 'limit' : 'yaml-syntax', message, documentStart(doc, lc)) };
  }
}
