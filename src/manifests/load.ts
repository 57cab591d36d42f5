/**
 * Loads manifests (DESIGN §2): every .yaml/.yml below the paths, many documents per file, each
 * validated like a compiler would — every problem of the run reported, each with file, line,
 * column and YAML path. Only documents without errors become resources; callers must not write
 * anything when `hasErrors(diagnostics)`. Every value at a sensitive path is told to the
 * scrubber as soon as it is known, valid document or not.
 */
import { hash } from 'node:crypto';
import { dirname, sep } from 'node:path';
import type { Document } from 'yaml';
import { ALERT_TEST_KIND, type AlertTestDocument } from '../alert-tests/schema.js';
import { alertTestOf } from './alert-tests.js';
import { credentialValues } from './credentials.js';
import { refuseCarried, SensitiveValues, type GuardedDocument, type SensitiveValue } from './carried.js';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { sameItems } from '../core/collections.js';
import { deepFreeze } from '../core/freeze.js';
import { StringTable } from '../core/intern.js';
import type { Kind } from '../core/plan.js';
import { KINDS } from '../kinds/registry.js';
import type { DesiredResource } from '../core/resource.js';
import { registerSecret } from '../core/scrub.js';
import { specSchemas } from '../kinds/manifest.js';
import { crossCheck } from './cross-checks.js';
import { discoverFiles } from './discover.js';
import { validateDocument, type LoadedDocument, type Locate } from './document.js';
import { policyOf } from './policies.js';
import { positionAt } from './positions.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import { checkWithStandIns, notChecked, uncheckedDocument, uncheckedIdentity, type StandInCheck } from './unset.js';
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
  /**
   * With allowMissingEnv, for validate only: a document with an unset value is checked with
   * stand-ins in its place (./unset.ts), so everything that does not depend on the value is
   * checked; its resource is for checks only and must never be planned.
   */
  standIns?: boolean;
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
  /** Loads of unchanged files shared by the targets and runs that read them (default: every file loaded afresh). */
  loaded?: LoadedFiles;
}

/**
 * The loads of files shared by every target (and, in the daemon, every run) that reads them. A
 * file without a `${...}` loads the same for any target and environment, so it is parsed and
 * validated again only when its text changed; a file that interpolates is loaded afresh each time.
 * What is kept holds no YAML tree (a tree costs some 60 times its text: a daemon of 20,000 objects
 * kept 520 MB of them) nor the text (a digest of it: the text of 20,000 objects is 8 MB the daemon
 * would carry from run to run), and a file gone from a path it was found under is forgotten.
 */
export class LoadedFiles {
  readonly #files = new Map<string, Kept>();
  #rechecks = 0;
  /** The last cross-document checks, a few (targets whose trees differ check different documents). */
  #crossChecks: CrossChecked[] = [];
  #crossChecksMade = 0;

  /** The kept load of the file, when its text (by its digest) is the one it was loaded from. */
  get(file: string, digest: string): Kept | undefined {
    const kept = this.#files.get(file);
    return kept?.digest === digest ? kept : undefined;
  }

  /** Keeps a load without its documents' values (what the check needed of them is in its checks). */
  keep(file: string, digest: string, load: FileLoad, against: string, check: CarriedCheck): void {
    const kept: Kept = { digest, load: deepFreeze({ ...load, guarded: [] }), checks: new Map() };
    addCheck(kept, against, deepFreeze(check));
    this.#files.set(file, kept);
  }

  /** The kept file's check against these values: one made earlier, or made now by `check` (which loads the file again). */
  checkOf(kept: Kept, against: string, check: () => CarriedCheck): CarriedCheck {
    let found = kept.checks.get(against);
    if (!found) {
      found = deepFreeze(check());
      addCheck(kept, against, found);
      this.#rechecks += 1;
    }
    return found;
  }

  /**
   * The cross-document checks of these documents: the result made for the very same documents,
   * when every one of them comes from a kept file (frozen, so the same object says the same
   * thing); otherwise made now by `check`. A daemon's run over an unchanged estate makes none.
   */
  crossCheckOf(
    loaded: readonly LoadedDocument[],
    failed: readonly FailedDocument[],
    check: () => ReturnType<typeof crossCheck>,
  ): ReturnType<typeof crossCheck> {
    const found = this.#crossChecks.find((c) => sameItems(c.loaded, loaded) && sameItems(c.failed, failed));
    if (found) return found.result;
    const result = check();
    this.#crossChecksMade += 1;
    if (loaded.every((d) => Object.isFrozen(d)) && failed.every((f) => Object.isFrozen(f))) {
      deepFreeze(result.diagnostics);
      this.#crossChecks = [{ loaded, failed, result }, ...this.#crossChecks].slice(0, CROSS_CHECKS_KEPT);
    }
    return result;
  }

  /** How many times the cross-document checks were made (not taken from an earlier load). */
  get crossChecksMade(): number {
    return this.#crossChecksMade;
  }

  /** How many times a kept file was loaded again to be checked against other sensitive values. */
  get rechecks(): number {
    return this.#rechecks;
  }

  /** Forgets the files below `paths` that are not among `found` (deleted, renamed, excluded). */
  retain(paths: readonly string[], found: readonly string[]): void {
    const present = new Set(found);
    for (const file of this.#files.keys())
      if (!present.has(file) && paths.some((p) => file === p || file.startsWith(p.endsWith(sep) ? p : p + sep))) this.#files.delete(file);
  }

  get size(): number {
    return this.#files.size;
  }
}

/**
 * A file's load as kept: the digest of the text it was loaded from, and its credential checks, one per set of
 * sensitive values it was checked against (targets whose own manifests hold different secrets
 * check the same shared file against different sets; a few are kept, the oldest forgotten).
 */
interface Kept {
  digest: string;
  load: FileLoad;
  checks: Map<string, CarriedCheck>;
}

const CHECKS_KEPT = 16;
const CROSS_CHECKS_KEPT = 4;

interface CrossChecked {
  loaded: readonly LoadedDocument[];
  failed: readonly FailedDocument[];
  result: ReturnType<typeof crossCheck>;
}

function addCheck(kept: Kept, against: string, check: CarriedCheck): void {
  kept.checks.set(against, check);
  for (const oldest of kept.checks.keys()) {
    if (kept.checks.size <= CHECKS_KEPT) break;
    kept.checks.delete(oldest);
  }
}

/**
 * The credential check of one file's documents (trust invariant 5) against one set of sensitive
 * values: what it refused, and which of the load's documents carry a value (by their index in
 * `load.loaded`: a file loaded again to be checked has the same documents in the same order).
 */
interface CarriedCheck {
  refused: readonly Diagnostic[];
  /** Indices in `load.loaded` of the documents that carry a sensitive value: they do not become resources. */
  carrying: ReadonlySet<number>;
}

function carriedCheck(values: SensitiveValues, load: FileLoad): CarriedCheck {
  const refused: Diagnostic[] = [];
  const carrying = new Set<number>();
  for (const g of load.guarded) {
    const found = refuseCarried(values, [g]);
    refused.push(...found);
    if (found.length > 0 && g.loaded) carrying.add(load.loaded.indexOf(g.loaded));
  }
  return { refused, carrying };
}

export interface LoadResult {
  resources: DesiredResource[];
  diagnostics: Diagnostic[];
  /** Files read without error that declare nothing (empty, or only `---` or comments): what they declared before is not deleted without a word. */
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

/** A file's text as read, with the digest kept loads recognise it by (taken once per read). */
interface FileText {
  text: string;
  digest: string;
}

/** SHA-256: a different text never passes for the kept one. */
function textDigest(text: string): string {
  return hash('sha256', text, 'base64');
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
  /** The rules of its Policy documents. */
  policies: PolicyRule[];
  alertTests: AlertTestDocument[];
}

/** The documents of one file's text; `shareable`: none of them interpolates, so the load is the same for any target and environment. */
function loadText(file: string, { text, digest }: FileText, opts: LoadOptions): { load: FileLoad; shareable: boolean } {
  const parsed = parseYamlFile(file, text);
  // Judged before interpolation rewrites it.
  const shareable = !parsed.docs.some(interpolates);
  const locator = locatorOf(file, digest, opts.readFile ?? readRegularFile);
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
  const policies: PolicyRule[] = [];
  const alertTests: AlertTestDocument[] = [];
  // The file's documents share their strings: 500 dashboards need one "Traces", not 500.
  const strings = new StringTable();
  let documents = 0;
  for (const [index, doc] of parsed.docs.entries()) {
    const locate = locator(index);
    const kind = kindOf(doc);
    // obsync.yaml may sit among the manifests: it is read (and interpolated) by the config loader.
    if (kind === 'Config') continue;
    documents += 1;
    // A Policy is read for the rules, as written (no interpolation), and is never a resource.
    if (kind === 'Policy') {
      const read = policyOf(file, doc, parsed.lineCounter);
      policies.push(...read.rules);
      diagnostics.push(...read.diagnostics);
      continue;
    }
    if (kind === ALERT_TEST_KIND) {
      const read = alertTestOf(file, doc, parsed.lineCounter);
      alertTests.push(...read.tests);
      diagnostics.push(...read.diagnostics);
      continue;
    }
    const field = kind ? specFields(kind) : undefined;
    const isSensitive = kind ? sensitiveIn(kind) : notSensitive;
    const missing = new Map<string, readonly PropertyKey[]>();
    const onMissing = (path: readonly PropertyKey[]) => missing.set(formatPath(path), path);
    const refs = interpolateDocument(doc, parsed.lineCounter, { ...ctx, ...(field ? { field } : {}), onMissing });
    const standIns = opts.standIns === true && ctx.allowMissingEnv && missing.size > 0;
    const numbers = numberProblems(file, doc, parsed.lineCounter, isSensitive);
    const problems = [...(standIns ? refs.map(notChecked) : refs), ...numbers];
    diagnostics.push(...problems);
    const { value: parsedValue, diagnostic } = documentValue(file, doc, parsed.lineCounter);
    if (diagnostic) {
      diagnostics.push(diagnostic);
      failed.push(statedIdentity(file, doc, parsed.lineCounter));
      continue;
    }
    const value = strings.internAll(parsedValue);
    if (kind) sensitive.push(...registerSensitiveValues(kind, value, file));
    const result: StandInCheck = standIns
      ? checkWithStandIns(file, doc, parsed.lineCounter, value, locate, [...missing.values()], index)
      : validateDocument(file, doc, parsed.lineCounter, value, locate);
    // A value that failed to interpolate is empty: its schema complaint would only repeat the cause.
    const unresolved = new Set(problems.map((r) => r.path));
    diagnostics.push(...result.diagnostics.filter((d) => !unresolved.has(d.path)));
    const valid = result.loaded && !problems.some((r) => r.severity === 'error') ? result.loaded : undefined;
    if (valid) loaded.push(valid);
    else failed.push(uncheckedIdentity(statedIdentity(file, doc, parsed.lineCounter), result.unchecked, missing));
    if (!valid && result.unchecked !== undefined) diagnostics.push(uncheckedDocument(file, doc, parsed.lineCounter, result.unchecked));
    if (kind)
      guarded.push({
        file,
        locate,
        value,
        sensitive: isSensitive,
        address: valid?.resource.address,
        ...(valid ? { loaded: valid } : {}),
      });
  }
  return {
    load: { loaded, diagnostics, documents: documents + parsed.diagnostics.length, failed, guarded, sensitive, policies, alertTests },
    shareable,
  };
}

/** Per kind, not per document: a kept load holds one of each for all its documents. */
const fieldsByKind = new Map<Kind, ReturnType<typeof fieldLookup>>();
const sensitiveByKind = new Map<Kind, (path: readonly PropertyKey[]) => boolean>();
const notSensitive = () => false;

function specFields(kind: Kind): ReturnType<typeof fieldLookup> {
  let field = fieldsByKind.get(kind);
  if (!field) fieldsByKind.set(kind, (field = fieldLookup(specSchemas[kind], ['spec'])));
  return field;
}

function sensitiveIn(kind: Kind): (path: readonly PropertyKey[]) => boolean {
  let sensitive = sensitiveByKind.get(kind);
  if (!sensitive) {
    const field = specFields(kind);
    sensitiveByKind.set(kind, (sensitive = (path) => field(path).sensitive));
  }
  return sensitive;
}

/**
 * Positions in the documents of a file, for findings made after its load: the file is read and
 * parsed again on the first one (positions do not depend on interpolation, which changes values
 * only). It does not hold the text: a daemon keeps the loads of unchanged files from run to run,
 * and the text of 20,000 objects is 8 MB. A file changed (or gone) since gives the first line.
 */
function locatorOf(file: string, digest: string, read: (file: string) => string): (index: number) => Locate {
  let again: ParsedFile | null | undefined;
  return (index) => (path) => {
    again ??= parsedAgain(file, digest, read);
    const doc = again?.docs[index];
    return doc && again ? positionAt(doc, again.lineCounter, path) : { line: 1, col: 1 };
  };
}

function parsedAgain(file: string, digest: string, read: (file: string) => string): ParsedFile | null {
  try {
    const text = read(file);
    return textDigest(text) === digest ? parseYamlFile(file, text) : null;
  } catch {
    return null;
  }
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

function kindOf(doc: Document): Kind | 'Config' | 'Policy' | typeof ALERT_TEST_KIND | undefined {
  const kind = doc.get('kind');
  return kind === 'Config' || kind === 'Policy' || kind === ALERT_TEST_KIND || isKind(kind) ? kind : undefined;
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
