/**
 * Reads and validates `obsync.yaml` like the manifests: positions on every error, did-you-mean
 * for unknown keys, `${env:...}` / `${file:...}` interpolation (relative to the config file).
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { hasErrors, type Diagnostic } from '../core/diagnostics.js';
import { interpolateDocument } from '../manifests/interpolate.js';
import { issuesToDiagnostics } from '../manifests/issues.js';
import { sortDiagnostics } from '../manifests/load.js';
import { documentValue, parseYamlFile } from '../manifests/parse.js';
import { configSchema, type ObsyncConfig } from './schema.js';

export interface LoadedConfig {
  /** Undefined when the file has errors. */
  config: ObsyncConfig | undefined;
  diagnostics: Diagnostic[];
  /** The directory of the config file: manifest and state paths are relative to it. */
  dir: string;
}

export interface LoadConfigOptions {
  readFile?: (path: string) => string;
}

export function loadConfig(path: string, env: Readonly<Record<string, string | undefined>>, opts: LoadConfigOptions = {}): LoadedConfig {
  const dir = dirname(path);
  const read = opts.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  const fail = (diagnostics: Diagnostic[]): LoadedConfig => ({ config: undefined, diagnostics, dir });
  let text: string;
  try {
    text = read(path);
  } catch (e) {
    return fail([{ severity: 'error', code: 'io', message: `cannot read config ${path}: ${e instanceof Error ? e.message : String(e)}`, file: path }]);
  }
  const parsed = parseYamlFile(path, text);
  if (parsed.diagnostics.length > 0) return fail(parsed.diagnostics);
  const [doc, ...extra] = parsed.docs;
  if (!doc) return fail([{ severity: 'error', code: 'empty-config', message: `${path} is empty: it needs apiVersion: obsync/v1 and kind: Config`, file: path, line: 1, col: 1 }]);
  if (extra.length > 0) return fail([{ severity: 'error', code: 'multiple-documents', message: `${path} holds ${parsed.docs.length} documents; obsync.yaml is a single document`, file: path, line: 1, col: 1 }]);
  const ctx = { file: path, env, readRef: read, resolvePath: (p: string) => (isAbsolute(p) ? p : join(dir, p)), allowMissingEnv: false };
  const diagnostics = interpolateDocument(doc, parsed.lineCounter, ctx);
  const { value, diagnostic } = documentValue(path, doc, parsed.lineCounter);
  if (diagnostic) return fail([...diagnostics, diagnostic]);
  const result = configSchema.safeParse(value);
  if (!result.success) {
    // A value that failed to interpolate is empty: its schema complaint would only repeat the cause.
    const unresolved = new Set(diagnostics.map((d) => d.path));
    const schemaProblems = issuesToDiagnostics(result.error.issues, { file: path, doc, lineCounter: parsed.lineCounter, schema: configSchema, value, basePath: [] });
    diagnostics.push(...schemaProblems.filter((d) => !unresolved.has(d.path)));
  }
  return { config: result.success && !hasErrors(diagnostics) ? result.data : undefined, diagnostics: sortDiagnostics(diagnostics), dir };
}
