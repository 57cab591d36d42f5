/** Reads a `kind: Policy` document (src/policy/policy-manifest.ts): its rules, each with its own file:line. */
import type { Document, LineCounter } from 'yaml';
import type { Diagnostic } from '../core/diagnostics.js';
import { policyDocumentSchema, type PolicyRule } from '../policy/policy-manifest.js';
import { issuesToDiagnostics } from './issues.js';
import { documentValue } from './parse.js';
import { positionAt } from './positions.js';

export function policyDocument(
  file: string,
  doc: Document,
  lineCounter: LineCounter,
  value: unknown,
): { rules: PolicyRule[]; diagnostics: Diagnostic[] } {
  const parsed = policyDocumentSchema.safeParse(value);
  if (!parsed.success) {
    const ctx = { file, doc, lineCounter, schema: policyDocumentSchema, value, basePath: [] };
    return { rules: [], diagnostics: issuesToDiagnostics(parsed.error.issues, ctx) };
  }
  const policy = parsed.data.metadata.name;
  const rules = parsed.data.spec.rules.map((r, i): PolicyRule => {
    const at = positionAt(doc, lineCounter, ['spec', 'rules', i]);
    return { ...r, policy, file, line: at.line, col: at.col };
  });
  return { rules, diagnostics: [] };
}

/** A Policy document as parsed (its value as written: Policy documents are not interpolated). */
export function policyOf(file: string, doc: Document, lineCounter: LineCounter): { rules: PolicyRule[]; diagnostics: Diagnostic[] } {
  const { value, diagnostic } = documentValue(file, doc, lineCounter);
  if (diagnostic) return { rules: [], diagnostics: [diagnostic] };
  return policyDocument(file, doc, lineCounter, value);
}
