/**
 * Reads and validates `obsync.yaml` like the manifests: positions on every error, did-you-mean
 * for unknown keys, `${env:...}` / `${file:...}` interpolation (relative to the config file, and
 * confined to its directory tree unless `allowFileOutside` says otherwise). Credentials are
 * sensitive fields: obsync's own credential variables may be used there and nowhere else.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { isScalar, isSeq, type Document } from 'yaml';
import { hasErrors, type Diagnostic } from '../core/diagnostics.js';
import { fieldLookup, sensitivePathsOf } from '../manifests/fields.js';
import { readRegularFile, type FileScope } from '../manifests/files.js';
import { interpolateDocument } from '../manifests/interpolate.js';
import { issuesToDiagnostics } from '../manifests/issues.js';
import { credentialGuard, sortDiagnostics } from '../manifests/load.js';
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
  /** Reads the config and its `${file:}` targets (tests: in-memory files, paths taken as they are). */
  readFile?: (path: string) => string;
  /** --allow-file-outside: `${file:}` may read anywhere. */
  allowFileOutside?: boolean;
}

/** The state URL holds a password: a credential, whatever the state schema marks. */
const EXTRA_SENSITIVE = [['state', 'url']];

export const CONFIG_SENSITIVE_PATHS: readonly (readonly string[])[] = [...sensitivePathsOf(configSchema), ...EXTRA_SENSITIVE];

export function loadConfig(path: string, env: Readonly<Record<string, string | undefined>>, opts: LoadConfigOptions = {}): LoadedConfig {
  const dir = dirname(path);
  const read = opts.readFile ?? ((p: string) => readRegularFile(p));
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
  const files: FileScope = {
    roots: [dir],
    allowOutside: opts.allowFileOutside === true || literalAllowOutside(doc, dir),
    ...(opts.readFile ? { realpath: (p: string) => resolve(p) } : {}),
  };
  const ctx = { file: path, env, allowMissingEnv: false, files, readRef: read, field: fieldLookup(configSchema, [], EXTRA_SENSITIVE), credentials: credentialGuard(env) };
  const diagnostics = interpolateDocument(doc, parsed.lineCounter, ctx);
  const { value, diagnostic } = documentValue(path, doc, parsed.lineCounter);
  if (diagnostic) return fail([...diagnostics, diagnostic]);
  const result = configSchema.safeParse(value);
  if (!result.success) {
    // A value that failed to interpolate is empty: its schema complaint would only repeat the cause.
    const unresolved = new Set(diagnostics.map((d) => d.path));
    const schemaProblems = issuesToDiagnostics(result.error.issues, { file: path, doc, lineCounter: parsed.lineCounter, schema: configSchema, value, basePath: [], sensitive: CONFIG_SENSITIVE_PATHS });
    diagnostics.push(...schemaProblems.filter((d) => !unresolved.has(d.path)));
  }
  return { config: result.success && !hasErrors(diagnostics) ? result.data : undefined, diagnostics: sortDiagnostics(diagnostics), dir };
}

/** `allowFileOutside` as written (before interpolation: a reference cannot widen its own confinement). */
function literalAllowOutside(doc: Document, dir: string): boolean | string[] {
  const node = doc.get('allowFileOutside', true);
  if (isScalar(node)) return node.value === true;
  if (isSeq(node)) return node.items.flatMap((item) => (isScalar(item) && typeof item.value === 'string' && !item.value.includes('${') ? [isAbsolute(item.value) ? item.value : resolve(dir, item.value)] : []));
  return false;
}
