/**
 * Loads one file's text: each of its documents interpolated, checked and validated, Policy and AlertTest
 * documents read for their rules and tests, and every sensitive value told to the scrubber.
 */
import { dirname } from 'node:path';
import { ALERT_TEST_KIND, type AlertTestDocument } from '../alert-tests/schema.js';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { StringTable } from '../core/intern.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import { alertTestOf } from './alert-tests.js';
import type { GuardedDocument, SensitiveValue } from './carried.js';
import { validateDocument, type LoadedDocument } from './document.js';
import { kindOf, notSensitive, registerSensitiveValues, sensitiveIn, specFields } from './document-kinds.js';
import { locatorOf, type FileText } from './file-text.js';
import { readRegularFile, type FileScope } from './files.js';
import { interpolateDocument, interpolates, type InterpolationContext, type TargetVars } from './interpolate.js';
import { documentValue, parseYamlFile, statedIdentity, type FailedDocument } from './parse.js';
import { numberProblems } from './number-problems.js';
import { policyOf } from './policies.js';
import { checkWithStandIns, notChecked, uncheckedDocument, uncheckedIdentity, type StandInCheck } from './unset.js';

/** The options of a load that shape each file's documents. */
export interface FileLoadOptions {
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
  /** The target whose vars answer `${var:NAME}` (none: `${var:}` is an error). */
  vars?: TargetVars;
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
export function loadText(file: string, { text, digest }: FileText, opts: FileLoadOptions): { load: FileLoad; shareable: boolean } {
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
