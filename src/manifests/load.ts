/**
 * Loads manifests (DESIGN §2): every .yaml/.yml below the paths, many documents per file, each
 * validated like a compiler would — every problem of the run reported, each with file, line,
 * column and YAML path. Only documents without errors become resources; callers must not write
 * anything when `hasErrors(diagnostics)`. Every value at a sensitive path is told to the
 * scrubber as soon as it is known, valid document or not.
 */
import { dirname } from 'node:path';
import type { AlertTestDocument } from '../alert-tests/schema.js';
import { sortDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import type { DesiredResource } from '../core/resource.js';
import { registerSecret } from '../core/scrub.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import { SensitiveValues, type SensitiveValue } from './carried.js';
import { credentialValues } from './credentials.js';
import { crossCheck } from './cross-checks.js';
import { discoverFiles } from './discover.js';
import type { LoadedDocument } from './document.js';
import { loadText, type FileLoad, type FileLoadOptions } from './file-load.js';
import { textDigest, type FileText } from './file-text.js';
import { FileRefusal, readRegularFile } from './files.js';
import { carriedCheck, type Kept, type LoadedFiles } from './loaded-files.js';
import { LIMITS, type FailedDocument } from './parse.js';

export interface LoadOptions extends FileLoadOptions {
  /**
   * Credentials and sensitive values from outside the manifests — obsync.yaml's (its targets'
   * credentials, the state URL) and the environment's — that no non-sensitive field may carry
   * (default: the environment's credential variables only). The manifests' own sensitive values are added.
   */
  sensitive?: readonly SensitiveValue[];
  /** Loads of unchanged files shared by the targets and runs that read them (default: every file loaded afresh). */
  loaded?: LoadedFiles;
}

export interface LoadResult {
  resources: DesiredResource[];
  diagnostics: Diagnostic[];
  /**
   * Files read without error that declare nothing (empty, or only `---` or comments): what they declared before is not deleted without a
   * word.
   */
  emptyFiles: string[];
  /** The rules of `kind: Policy` documents (src/policy): never objects on the service, so never among `resources`. */
  policies: PolicyRule[];
  /** `kind: AlertTest` documents (src/alert-tests), read by `obsync test`; never objects on the service either. */
  alertTests: AlertTestDocument[];
}

export function loadManifests(paths: readonly string[], opts: LoadOptions): LoadResult {
  const { files, diagnostics } = discoverFiles(paths);
  opts.loaded?.retain(paths, files);
  const resolved: LoadOptions = { ...opts, files: opts.files ?? { roots: paths.map(rootOf) } };
  const sensitive = new SensitiveValues(opts.sensitive ?? credentialValues(opts.env));
  const entries = files.map((file) => fileEntry(file, resolved));
  for (const { load } of entries) for (const v of load.sensitive) sensitive.add(v.value, v.origin);
  // After every file: a value of a sensitive field in one file must not show in another's name.
  const against = sensitive.fingerprint();
  const loaded: LoadedDocument[] = [];
  const failed: FailedDocument[] = [];
  const carrying = new Set<LoadedDocument>();
  let documents = 0;
  for (const entry of entries) {
    const { load, kept, source } = entry;
    // Not yet checked against these values: its documents are needed again (the same, in the same order).
    let check =
      kept && source
        ? opts.loaded?.checkOf(kept, against, () => carriedCheck(sensitive, loadText(entry.file, source, resolved).load))
        : undefined;
    if (!check) {
      check = carriedCheck(sensitive, load);
      if (entry.keepable && source) opts.loaded?.keep(entry.file, source.digest, load, against, check);
    }
    loaded.push(...load.loaded);
    failed.push(...load.failed);
    diagnostics.push(...load.diagnostics, ...check.refused);
    for (const i of check.carrying) {
      const doc = load.loaded[i];
      if (doc) carrying.add(doc);
    }
    documents += load.documents;
  }
  const cross = opts.loaded ? opts.loaded.crossCheckOf(loaded, failed, () => crossCheck(loaded, failed)) : crossCheck(loaded, failed);
  diagnostics.push(...cross.diagnostics);
  const resources = loaded.filter((l) => !cross.rejected.has(l) && !carrying.has(l)).map((l) => l.resource);
  if (documents === 0 && !diagnostics.some((d) => d.severity === 'error')) diagnostics.push(noManifests(paths, files.length));
  const emptyFiles = entries.filter((e) => e.load.documents === 0 && e.load.failed.length === 0).map((e) => e.file);
  const policies = entries.flatMap((e) => e.load.policies);
  const alertTests = entries.flatMap((e) => e.load.alertTests);
  return { resources, diagnostics: sortDiagnostics(diagnostics), emptyFiles, policies, alertTests };
}

/** One file of a load: kept from an earlier load (with its check), or loaded now. */
interface FileEntry {
  file: string;
  /** Undefined when the file could not be read. */
  source?: FileText;
  load: FileLoad;
  kept?: Kept;
  /** Loaded now, and the same for any target and environment: kept once checked. */
  keepable?: boolean;
}

function fileEntry(file: string, opts: LoadOptions): FileEntry {
  let text: string;
  try {
    text = (opts.readFile ?? readRegularFile)(file);
  } catch (e) {
    return {
      file,
      load: {
        loaded: [],
        diagnostics: [unreadable(file, e)],
        documents: 0,
        failed: [{ file, line: 1 }],
        guarded: [],
        sensitive: [],
        policies: [],
        alertTests: [],
      },
    };
  }
  const source = { text, digest: textDigest(text) };
  const kept = opts.loaded?.get(file, source.digest);
  if (kept) {
    for (const v of kept.load.sensitive) registerSecret(v.value);
    return { file, source, load: kept.load, kept };
  }
  const { load, shareable } = loadText(file, source, opts);
  return { file, source, load, keepable: shareable };
}

/** A run that finds nothing says so: a mount that did not happen must not look like "nothing declared". */
function noManifests(paths: readonly string[], fileCount: number): Diagnostic {
  const found = fileCount === 0 ? 'no .yaml/.yml files' : `${fileCount} .yaml/.yml file(s), none holding a manifest`;
  return { severity: 'warning', code: 'no-manifests', message: `no manifests found: searched ${paths.join(', ')} (${found})` };
}

function rootOf(path: string): string {
  return /\.ya?ml$/i.test(path) ? dirname(path) : path;
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
