/**
 * Reads one YAML file into documents with positions, under hard limits: 1 MiB per file, 500
 * documents, nesting depth 64, and alias expansion capped by yaml's maxAliasCount (a "billion
 * laughs" file fails instead of eating memory). `parseAllDocuments` never throws; `toJS` can.
 */
import { isCollection, isPair, isScalar, LineCounter, parseAllDocuments, type Document } from 'yaml';
import type { Diagnostic } from '../core/diagnostics.js';
import { documentStart, type Position } from './positions.js';

export const LIMITS = { fileBytes: 1024 * 1024, documents: 500, depth: 64, aliases: 100 } as const;

export interface ParsedFile {
  docs: Document[];
  lineCounter: LineCounter;
  diagnostics: Diagnostic[];
}

function err(file: string, code: string, message: string, pos: Position = { line: 1, col: 1 }): Diagnostic {
  return { severity: 'error', code, message, file, line: pos.line, col: pos.col };
}

export function parseYamlFile(file: string, text: string): ParsedFile {
  const lineCounter = new LineCounter();
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.fileBytes) {
    return { docs: [], lineCounter, diagnostics: [err(file, 'limit', `file is ${bytes} bytes; the limit is ${LIMITS.fileBytes} (1 MiB) — split it into several files`)] };
  }
  const all = parseAllDocuments(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if ('empty' in all) return { docs: [], lineCounter, diagnostics: [] };
  if (all.length > LIMITS.documents) {
    return { docs: [], lineCounter, diagnostics: [err(file, 'limit', `file has ${all.length} documents; the limit is ${LIMITS.documents} — split it into several files`)] };
  }
  const diagnostics: Diagnostic[] = [];
  const docs: Document[] = [];
  for (const doc of all) {
    const problems = [...doc.errors.map((e) => yamlError(file, e, lineCounter))];
    if (problems.length === 0) {
      const deep = tooDeep(doc.contents, 0);
      if (deep) problems.push(err(file, 'limit', `nesting deeper than ${LIMITS.depth} levels`, lineCounter.linePos(deep)));
    }
    diagnostics.push(...problems);
    if (problems.length === 0 && !isEmpty(doc)) docs.push(doc);
  }
  return { docs, lineCounter, diagnostics };
}

/** `---` followed by nothing (or only comments) is an empty document: ignored. */
function isEmpty(doc: Document): boolean {
  return doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null && doc.contents.source === '');
}

function yamlError(file: string, e: { message: string; code: string; pos: [number, number] }, lc: LineCounter): Diagnostic {
  const first = e.message.split('\n')[0] ?? e.message;
  const message = first.replace(/ at line \d+, column \d+:?$/, '');
  return err(file, e.code === 'RESOURCE_EXHAUSTION' ? 'limit' : 'yaml-syntax', `YAML: ${message}`, lc.linePos(e.pos[0]));
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
