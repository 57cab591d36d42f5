import { printable } from './printable.js';

/** A problem found in user input, located as precisely as we can (Terraform's tfdiags idea). */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Stable short code, e.g. `unknown-key`, `yaml-syntax`, `duplicate-identity`. */
  code: string;
  message: string;
  /** File path as the user gave it (relative to the working directory when possible). */
  file?: string;
  /** 1-based line and column. */
  line?: number;
  col?: number;
  /** YAML path inside the document, e.g. `spec.tiles[2].config.select[0].aggFn`. */
  path?: string;
  /** The object concerned, e.g. `Dashboard/checkout`. */
  address?: string;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** File, then line, then column; stable for equal positions. */
export function sortDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  return [...ds].sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
}

/** `file:line:col: message (at path)` — the one-line form used by the text printers; control characters shown escaped. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.file ? `${d.file}${d.line ? `:${d.line}${d.col ? `:${d.col}` : ''}` : ''}: ` : '';
  const at = d.path ? ` (at ${d.path})` : '';
  return printable(`${where}${d.severity}: ${d.message}${at}`);
}

/** Render an object path like `['spec','tiles',2,'name']` as `spec.tiles[2].name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}
