/** Reads a `kind: AlertTest` document (src/alert-tests/schema.ts) as written (no interpolation), with its file:line. */
import type { Document, LineCounter } from 'yaml';
import { alertTestDocumentSchema, type AlertTestDocument } from '../alert-tests/schema.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { issuesToDiagnostics } from './issues.js';
import { documentValue } from './parse.js';
import { positionAt } from './positions.js';

export function alertTestOf(
  file: string,
  doc: Document,
  lineCounter: LineCounter,
): { tests: AlertTestDocument[]; diagnostics: Diagnostic[] } {
  const { value, diagnostic } = documentValue(file, doc, lineCounter);
  if (diagnostic) return { tests: [], diagnostics: [diagnostic] };
  const parsed = alertTestDocumentSchema.safeParse(value);
  if (!parsed.success) {
    const ctx = { file, doc, lineCounter, schema: alertTestDocumentSchema, value, basePath: [] };
    return { tests: [], diagnostics: issuesToDiagnostics(parsed.error.issues, ctx) };
  }
  const at = positionAt(doc, lineCounter, []);
  return { tests: [{ name: parsed.data.metadata.name, spec: parsed.data.spec, file, line: at.line }], diagnostics: [] };
}
