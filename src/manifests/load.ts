/**
 * Loads manifests (DESIGN §2): every .yaml/.yml below the paths, many documents per file, each
 * validated like a compiler would — every problem of the run reported, each with file, line,
 * column and YAML path. Only documents without errors become resources; callers must not write
 * anything when `hasErrors(diagnostics)`.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import type { DesiredResource } from '../core/resource.js';
import { crossCheck } from './cross-checks.js';
import { discoverFiles } from './discover.js';
import { validateDocument, type LoadedDocument } from './document.js';
import { interpolateDocument } from './interpolate.js';
import { documentValue, parseYamlFile } from './parse.js';

export interface LoadOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Reads manifest files and `${file:...}` targets (default: UTF-8 from disk). */
  readFile?: (path: string) => string;
  /** Report unset `${env:...}` / unreadable `${file:...}` as warnings (value: empty string). */
  allowMissingEnv?: boolean;
}

export interface LoadResult {
  resources: DesiredResource[];
  diagnostics: Diagnostic[];
}

const readUtf8 = (p: string) => readFileSync(p, 'utf8');

export function loadManifests(paths: readonly string[], opts: LoadOptions): LoadResult {
  const { files, diagnostics } = discoverFiles(paths);
  const loaded: LoadedDocument[] = [];
  for (const file of files) {
    const result = loadFile(file, opts);
    loaded.push(...result.loaded);
    diagnostics.push(...result.diagnostics);
  }
  const cross = crossCheck(loaded);
  diagnostics.push(...cross.diagnostics);
  const resources = loaded.filter((l) => !cross.rejected.has(l)).map((l) => l.resource);
  return { resources, diagnostics: sortDiagnostics(diagnostics) };
}

/** File, then line, then column; stable for equal positions. */
export function sortDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  return [...ds].sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
}

export function loadFile(file: string, opts: LoadOptions): { loaded: LoadedDocument[]; diagnostics: Diagnostic[] } {
  const read = opts.readFile ?? readUtf8;
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    return { loaded: [], diagnostics: [{ severity: 'error', code: 'io', message: `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`, file, line: 1, col: 1 }] };
  }
  const parsed = parseYamlFile(file, text);
  const diagnostics = [...parsed.diagnostics];
  const loaded: LoadedDocument[] = [];
  const ctx = { file, env: opts.env, readRef: read, resolvePath: (p: string) => (isAbsolute(p) ? p : join(dirname(file), p)), allowMissingEnv: opts.allowMissingEnv ?? false };
  for (const doc of parsed.docs) {
    const refs = interpolateDocument(doc, parsed.lineCounter, ctx);
    diagnostics.push(...refs);
    const { value, diagnostic } = documentValue(file, doc, parsed.lineCounter);
    if (diagnostic) {
      diagnostics.push(diagnostic);
      continue;
    }
    const result = validateDocument(file, doc, parsed.lineCounter, value);
    // A value that failed to interpolate is empty: its schema complaint would only repeat the cause.
    const unresolved = new Set(refs.map((r) => r.path));
    diagnostics.push(...result.diagnostics.filter((d) => !unresolved.has(d.path)));
    if (result.loaded && !refs.some((r) => r.severity === 'error')) loaded.push(result.loaded);
  }
  return { loaded, diagnostics };
}
