/**
 * Checks across documents: one identity (kind + metadata.name) per object; every reference a
 * kind declares as "to a manifest" names a declared object (and an existing part key); and each
 * kind's own checks (src/kinds/<kind>: one Pipe manifest per pipe…).
 */
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import type { Address } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { CrossFinding, ManagedKind, SpecRef } from '../kinds/kind.js';
import { previousNameProblems } from '../kinds/previous-names.js';
import { isKind, MANAGED, managedDefinition } from '../kinds/registry.js';
import type { LoadedDocument } from './document.js';
import type { FailedDocument } from './parse.js';
import { didYouMean } from './suggest.js';

/** A problem found on one document; that document must not become a resource. */
interface Finding {
  doc: LoadedDocument;
  diagnostic: Diagnostic;
}

function at(d: LoadedDocument, path: readonly (string | number)[], code: string, message: string): Finding {
  const pathText = path.reduce<string>((out, seg) => (typeof seg === 'number' ? `${out}[${seg}]` : out === '' ? seg : `${out}.${seg}`), '');
  const diagnostic: Diagnostic = {
    severity: 'error',
    code,
    message,
    file: d.file,
    ...d.locate(path),
    path: pathText,
    address: d.resource.address,
  };
  return { doc: d, diagnostic };
}

const where = (d: LoadedDocument) => `${d.file}:${d.resource.source.line}`;

/** Diagnostics of the checks, and the documents they reject (the first of duplicates stays). */
export function crossCheck(
  docs: readonly LoadedDocument[],
  failed: readonly FailedDocument[] = [],
): { diagnostics: Diagnostic[]; rejected: Set<LoadedDocument> } {
  const found = [...duplicateIdentities(docs), ...references(docs, failed), ...kindChecks(docs), ...previousNames(docs)];
  // validate --allow-missing-env: a finding at an unset value (a stand-in) is about the stand-in, not the manifest.
  const findings = found.filter((f) => !f.doc.unset?.has(f.diagnostic.path ?? ''));
  return { diagnostics: findings.map((f) => f.diagnostic), rejected: new Set(findings.map((f) => f.doc)) };
}

function duplicateIdentities(docs: readonly LoadedDocument[]): Finding[] {
  const first = new Map<string, LoadedDocument>();
  const out: Finding[] = [];
  for (const d of docs) {
    const seen = first.get(d.resource.address);
    if (seen)
      out.push(
        at(
          d,
          ['metadata', 'name'],
          'duplicate-identity',
          `${d.resource.address} is already defined at ${where(seen)}; metadata.name must be unique per kind`,
        ),
      );
    else first.set(d.resource.address, d);
  }
  return out;
}

/** References that must name a manifest (and one of its part keys), from what each kind declares. */
function references(docs: readonly LoadedDocument[], failed: readonly FailedDocument[]): Finding[] {
  const declared = new Map<Address, DesiredResource>(docs.map((d) => [d.resource.address, d.resource]));
  const unsetKeys = new Set(docs.filter((d) => d.unsetKeys).map((d) => d.resource.address));
  const out: Finding[] = [];
  for (const d of docs) {
    const def = managedDefinition(d.resource.kind);
    for (const ref of def?.references(d.resource.spec) ?? []) {
      const checked = checkedPart(ref, d, unsetKeys);
      if (!checked) continue;
      const finding = checkReference(checked, declared, failed, d.file);
      if (finding) out.push(at(d, ['spec', ...finding.path], finding.code, finding.message));
    }
  }
  return out;
}

/**
 * The part of a reference that can be checked (validate --allow-missing-env): none when the name
 * is unset; the name alone when the part key is unset or the referenced object's keys depend on
 * an unset value.
 */
function checkedPart(ref: SpecRef, d: LoadedDocument, unsetKeys: ReadonlySet<string>): SpecRef | null {
  const unset = (path: readonly (string | number)[]) => d.unset?.has(formatPath(['spec', ...path])) === true;
  if (unset(ref.path)) return null;
  const keysUnset = typeof ref.ref === 'string' && unsetKeys.has(`${ref.kind}/${ref.ref}`);
  if (!ref.part || (!unset(ref.part.path) && !keysUnset)) return ref;
  const { part: _part, ...name } = ref;
  return name;
}

function checkReference(
  ref: SpecRef,
  declared: ReadonlyMap<Address, DesiredResource>,
  failed: readonly FailedDocument[],
  from: string,
): { path: readonly (string | number)[]; code: string; message: string } | null {
  const target = managedDefinition(ref.kind);
  if (!target || !ref.declaredOnly || typeof ref.ref !== 'string') return null;
  const resource = declared.get(`${ref.kind}/${ref.ref}`);
  if (!resource) {
    // Only for the message: listing the declared names per reference made loading quadratic.
    const names = [...declared.values()].filter((r) => r.kind === ref.kind).map((r) => r.name);
    const field = String(ref.path.at(-1) ?? target.noun);
    // Declared, perhaps, by a manifest that does not load without an unset value: not checked (validate says so there).
    if (failed.some((f) => f.unchecked && (f.name === ref.ref || f.name === undefined) && (f.kind === ref.kind || !isKind(f.kind ?? ''))))
      return null;
    const unloaded = failedDeclaration(failed, ref.kind, ref.ref, from);
    if (unloaded) return { path: ref.path, code: 'reference-to-failed', message: `${target.noun} '${ref.ref}' ${unloaded}` };
    const renamed = [...declared.values()].find((r) => r.kind === ref.kind && r.previousNames?.includes(ref.ref as string));
    const message = renamed
      ? `${target.noun} '${ref.ref}' was renamed: ${renamed.address} lists it in metadata.previousNames; refer to '${renamed.name}'`
      : `${target.noun} '${ref.ref}' is not the metadata.name of any ${ref.kind} manifest${didYouMean(ref.ref, names)} (for a ` +
        `${target.noun} obsync does not manage, use ${field}: {id: ...})`;
    return { path: ref.path, code: `unknown-${slug(target.noun)}`, message };
  }
  return ref.part ? checkPart(ref.part, target, resource) : null;
}

function checkPart(
  part: NonNullable<SpecRef['part']>,
  target: ManagedKind,
  resource: DesiredResource,
): { path: readonly (string | number)[]; code: string; message: string } | null {
  if (typeof part.ref !== 'string' || !target.parts) return null;
  const keys = target.parts.keys(resource.spec);
  if (keys.includes(part.ref)) return null;
  const noun = target.parts.noun;
  const renamed = [...target.parts.previousKeys(resource.spec)].find(([, previous]) => previous.includes(part.ref as string))?.[0];
  const message =
    renamed !== undefined
      ? `${noun} '${part.ref}' of ${resource.address} was renamed to '${renamed}' (its previousKeys list '${part.ref}'); refer to ` +
        `'${renamed}'`
      : `${noun} '${part.ref}' is not a ${noun} key of ${resource.address}${didYouMean(part.ref, keys)} (keys: ` +
        `${keys.join(', ') || 'none'})`;
  return { path: part.path, code: `unknown-${slug(noun)}`, message };
}

/**
 * A reference to an object whose manifest exists but did not load (a YAML error, a misspelt kind,
 * an invalid field) is not "missing": say where it is and that it failed; when a file failed so
 * badly that its names cannot be read, say it may be there.
 */
function failedDeclaration(failed: readonly FailedDocument[], kind: string, name: string, from: string): string | undefined {
  const where = (f: FailedDocument) => (f.file === from ? `on line ${f.line} of this file` : `at ${f.file}:${f.line}`);
  const named = failed.find((f) => f.name === name && (f.kind === kind || f.kind === undefined || !isKind(f.kind)));
  if (named) return `is declared ${where(named)}, but that manifest failed to load (its errors are listed above); fix them first`;
  const unreadable = [...new Set(failed.filter((f) => f.name === undefined).map((f) => (f.file === from ? 'this file' : f.file)))];
  if (unreadable.length === 0) return undefined;
  return (
    `was not found among the manifests that loaded; ${unreadable.join(', ')} failed to load and may declare it (its errors are ` +
    `listed above)`
  );
}

function kindChecks(docs: readonly LoadedDocument[]): Finding[] {
  const byResource = new Map(docs.map((d) => [d.resource, d]));
  const resources = docs.map((d) => d.resource);
  const out: Finding[] = [];
  for (const def of MANAGED) {
    for (const f of def.crossCheck?.(resources) ?? ([] as CrossFinding[])) {
      const doc = byResource.get(f.resource);
      if (doc) out.push(at(doc, f.path, f.code, f.message));
    }
  }
  return out;
}

/** A previous name still declared, or claimed by two manifests: each such manifest is rejected (never a guess which one moves). */
function previousNames(docs: readonly LoadedDocument[]): Finding[] {
  const byResource = new Map(docs.map((d) => [d.resource, d]));
  const out: Finding[] = [];
  for (const p of previousNameProblems(docs.map((d) => d.resource))) {
    const doc = byResource.get(p.resource);
    if (doc) out.push(at(doc, ['metadata', 'previousNames', p.index], p.code, p.message));
  }
  return out;
}

function slug(noun: string): string {
  return noun.replaceAll(' ', '-');
}
