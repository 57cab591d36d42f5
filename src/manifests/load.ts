/**
 * Loads manifests (DESIGN §2): every .yaml/.yml below the paths, many documents per file, each
 * validated like a compiler would — every problem of the run reported, each with file, line,
 * column and YAML path. Only documents without errors become resources; callers must not write
 * anything when `hasErrors(diagnostics)`. Every value at a sensitive path is told to the
 * scrubber as soon as it is known, valid document or not.
 */
import { dirname } from 'node:path';
import type { Document } from 'yaml';
import { credentialValues } from './credentials.js';
import { refuseCarried, SensitiveValues, type GuardedDocument, type SensitiveValue } from './carried.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { Kind } from '../core/plan.js';
import { KINDS } from '../kinds/registry.js';
import type { DesiredResource } from '../core/resource.js';
import { registerSecret } from '../core/scrub.js';
import { specSchemas } from '../kinds/manifest.js';
import { crossCheck } from './cross-checks.js';
import { discoverFiles } from './discover.js';
import { validateDocument, type LoadedDocument } from './document.js';
import { fieldLookup, sensitivePathsOf, valuesAt } from './fields.js';
import { FileRefusal, readRegularFile, type FileScope } from './files.js';
import { interpolateDocument, interpolates, type InterpolationContext, type TargetVars } from './interpolate.js';
import { documentValue, LIMITS, numberProblems, parseYamlFile, statedIdentity, type FailedDocument, type ParsedFile } from './parse.js';

export interface LoadOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Reads manifest files and `${file:...}` targets (default: regular files of at most 1 MiB from disk). */
  readFile?: (path: string) => string;
  /** Report unset `${env:...}` / unreadable `${file:...}` as warnings (value: empty string). */
  allowMissingEnv?: boolean;
  /** Where `${file:...}` may read (default: below the paths given). */
  files?: FileScope;
  /**
   * Credentials and sensitive values from outside the manifests — obsync.yaml's (its targets'
   * credentials, the state URL) and the environment's — that no non-sensitive field may carry
   * (default: the environment's credential variables only). The manifests' own sensitive values are added.
   */
  sensitive?: readonly SensitiveValue[];
  /** The target whose vars answer `${var:NAME}` (none: `${var:}` is an error). */
  vars?: TargetVars;
  /** Parsed files shared by the targets that read them (default: every file parsed afresh). */
  parsed?: ParsedFiles;
}

/**
 * Files parsed once for every target (and, in the daemon, every run) that reads them: a file
 * is parsed again only when its text changed. Each load interpolates its own copy.
 */
export class ParsedFiles {
  readonly #files = new Map<string, { text: string; parsed: ParsedFile; rewritten: boolean[] }>();

  /**
   * The file's documents, each a private copy when interpolation rewrites it; one without a
   * `${` is never written to and is shared as it is (copying a YAML document costs several times
   * its parse, and a daemon of 20,000 objects spent seconds a run on it).
   */
  parse(file: string, text: string): ParsedFile {
    let cached = this.#files.get(file);
    if (cached?.text !== text) {
      const parsed = parseYamlFile(file, text);
      cached = { text, parsed, rewritten: parsed.docs.map(interpolates) };
      this.#files.set(file, cached);
    }
    const { rewritten } = cached;
    const { docs, lineCounter, diagnostics, failed } = cached.parsed;
    return { docs: docs.map((d, i) => (rewritten[i] === false ? d : d.clone())), lineCounter, diagnostics, ...(failed ? { failed } : {}) };
  }
}

export interface LoadResult {
  resources: DesiredResource[];
  diagnostics: Diagnostic[];
}

export function loadManifests(paths: readonly string[], opts: LoadOptions): LoadResult {
  const { files, diagnostics } = discoverFiles(paths);
  const resolved: LoadOptions = { ...opts, files: opts.files ?? { roots: paths.map(rootOf) } };
  const loaded: LoadedDocument[] = [];
  const guarded: Guarded[] = [];
  const sensitive = new SensitiveValues(opts.sensitive ?? credentialValues(opts.env));
  const failed: FailedDocument[] = [];
  let documents = 0;
  for (const file of files) {
    const result = loadFile(file, resolved);
    loaded.push(...result.loaded);
    guarded.push(...result.guarded);
    for (const v of result.sensitive) sensitive.add(v.value, v.origin);
    failed.push(...result.failed);
    diagnostics.push(...result.diagnostics);
    documents += result.documents;
  }
  // After every file: a value of a sensitive field in one file must not show in another's name.
  const carrying = new Set<LoadedDocument>();
  for (const g of guarded) {
    const refused = refuseCarried(sensitive, [g]);
    diagnostics.push(...refused);
    if (refused.length > 0 && g.loaded) carrying.add(g.loaded);
  }
  const cross = crossCheck(loaded, failed);
  diagnostics.push(...cross.diagnostics);
  const resources = loaded.filter((l) => !cross.rejected.has(l) && !carrying.has(l)).map((l) => l.resource);
  if (documents === 0 && !diagnostics.some((d) => d.severity === 'error')) diagnostics.push(noManifests(paths, files.length));
  return { resources, diagnostics: sortDiagnostics(diagnostics) };
}

/** A run that finds nothing says so: a mount that did not happen must not look like "nothing declared". */
function noManifests(paths: readonly string[], fileCount: number): Diagnostic {
  const found = fileCount === 0 ? 'no .yaml/.yml files' : `${fileCount} .yaml/.yml file(s), none holding a manifest`;
  return { severity: 'warning', code: 'no-manifests', message: `no manifests found: searched ${paths.join(', ')} (${found})` };
}

function rootOf(path: string): string {
  return /\.ya?ml$/i.test(path) ? dirname(path) : path;
}

/** File, then line, then column; stable for equal positions. */
export function sortDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  return [...ds].sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
}

/** A document the credential rule looks at, with the resource it became (if valid). */
interface Guarded extends GuardedDocument {
  loaded?: LoadedDocument;
}

/** The documents of one file (`documents`: how many there were, obsync.yaml not counted). */
export interface FileLoad {
  loaded: LoadedDocument[];
  diagnostics: Diagnostic[];
  /** How many documents there were (obsync.yaml not counted). */
  documents: number;
  /** Documents that did not load, with what they seem to declare (`file` alone: the file could not be read). */
  failed: FailedDocument[];
  guarded: Guarded[];
  /** The values of the file's sensitive fields, after interpolation. */
  sensitive: SensitiveValue[];
}

export function loadFile(file: string, opts: LoadOptions): FileLoad {
  let text: string;
  try {
    text = (opts.readFile ?? readRegularFile)(file);
  } catch (e) {
    return { loaded: [], diagnostics: [unreadable(file, e)], documents: 0, failed: [{ file, line: 1 }], guarded: [], sensitive: [] };
  }
  const parsed = opts.parsed ? opts.parsed.parse(file, text) : parseYamlFile(file, text);
  const diagnostics = [...parsed.diagnostics];
  const failed: FailedDocument[] = [...(parsed.failed ?? [])];
  // A limit that refuses the whole file (size, nesting, document count) leaves nothing to read names from.
  if (parsed.docs.length === 0 && parsed.diagnostics.length > 0 && failed.length === 0) failed.push({ file, line: 1 });
  const loaded: LoadedDocument[] = [];
  const ctx: InterpolationContext = {
    file,
    env: opts.env,
    allowMissingEnv: opts.allowMissingEnv ?? false,
    files: opts.files ?? { roots: [dirname(file)] },
    ...(opts.readFile ? { readRef: opts.readFile } : {}),
    ...(opts.vars ? { vars: opts.vars } : {}),
  };
  const guarded: Guarded[] = [];
  const sensitive: SensitiveValue[] = [];
  let documents = 0;
  for (const doc of parsed.docs) {
    const kind = kindOf(doc);
    // obsync.yaml may sit among the manifests: it is read (and interpolated) by the config loader.
    if (kind === 'Config') continue;
    documents += 1;
    const field = kind ? fieldLookup(specSchemas[kind], ['spec']) : undefined;
    const refs = interpolateDocument(doc, parsed.lineCounter, field ? { ...ctx, field } : ctx);
    const numbers = numberProblems(file, doc, parsed.lineCounter, (path) => field?.(path).sensitive ?? false);
    const problems = [...refs, ...numbers];
    diagnostics.push(...problems);
    const { value, diagnostic } = documentValue(file, doc, parsed.lineCounter);
    if (diagnostic) {
      diagnostics.push(diagnostic);
      failed.push(statedIdentity(file, doc, parsed.lineCounter));
      continue;
    }
    if (kind) sensitive.push(...registerSensitiveValues(kind, value, file));
    const result = validateDocument(file, doc, parsed.lineCounter, value);
    // A value that failed to interpolate is empty: its schema complaint would only repeat the cause.
    const unresolved = new Set(problems.map((r) => r.path));
    diagnostics.push(...result.diagnostics.filter((d) => !unresolved.has(d.path)));
    const valid = result.loaded && !problems.some((r) => r.severity === 'error') ? result.loaded : undefined;
    if (valid) loaded.push(valid);
    else failed.push(statedIdentity(file, doc, parsed.lineCounter));
    if (kind)
      guarded.push({
        file,
        doc,
        lineCounter: parsed.lineCounter,
        value,
        sensitive: (path) => field?.(path).sensitive ?? false,
        address: valid?.resource.address,
        ...(valid ? { loaded: valid } : {}),
      });
  }
  return { loaded, diagnostics, documents: documents + parsed.diagnostics.length, failed, guarded, sensitive };
}

function unreadable(file: string, e: unknown): Diagnostic {
  const at = { file, line: 1, col: 1 };
  if (e instanceof FileRefusal && e.code === 'too-large') {
    return {
      severity: 'error',
      code: 'limit',
      message: `file is larger than ${LIMITS.fileBytes} bytes (1 MiB), the limit — split it into several files`,
      ...at,
    };
  }
  const reason = e instanceof FileRefusal ? e.message : e instanceof Error ? e.message : String(e);
  return { severity: 'error', code: 'io', message: `cannot read ${file}: ${reason}`, ...at };
}

const isKind = (k: unknown): k is Kind => typeof k === 'string' && (KINDS as readonly string[]).includes(k);

function kindOf(doc: Document): Kind | 'Config' | undefined {
  const kind = doc.get('kind');
  return kind === 'Config' || isKind(kind) ? kind : undefined;
}

/** Every value at a sensitive path of a document's spec, told to the scrubber and returned for the credential rule. */
function registerSensitiveValues(kind: Kind, value: unknown, file: string): SensitiveValue[] {
  const spec = typeof value === 'object' && value !== null ? (value as { spec?: unknown }).spec : undefined;
  const out: SensitiveValue[] = [];
  for (const pattern of sensitivePathsOf(specSchemas[kind]))
    for (const secret of valuesAt(spec, [pattern])) {
      registerSecret(secret);
      out.push({ value: secret, origin: `the value of spec.${pattern.join('.')} in ${file}` });
    }
  return out;
}
