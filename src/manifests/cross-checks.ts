/**
 * Checks across documents: one identity (kind + metadata.name) per object; every reference a
 * kind declares as "to a manifest" names a declared object (and an existing part key); and each
 * kind's own checks (src/kinds/<kind>: one Pipe manifest per pipe…).
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { Address } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { CrossFinding, ManagedKind, SpecRef } from '../kinds/kind.js';
import { previousNameProblems } from '../kinds/previous-names.js';
import { MANAGED, managedDefinition } from '../kinds/registry.js';
import type { LoadedDocument } from './document.js';
import { positionAt } from './positions.js';
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
    ...positionAt(d.doc, d.lineCounter, [...path]),
    path: pathText,
    address: d.resource.address,
  };
  return { doc: d, diagnostic };
}

const where = (d: LoadedDocument) => `${d.file}:${d.resource.source.line}`;

/** Diagnostics of the checks, and the documents they reject (the first of duplicates stays). */
export function crossCheck(docs: readonly LoadedDocument[]): { diagnostics: Diagnostic[]; rejected: Set<LoadedDocument> } {
  const findings = [...duplicateIdentities(docs), ...references(docs), ...kindChecks(docs), ...previousNames(docs)];
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
function references(docs: readonly LoadedDocument[]): Finding[] {
  const declared = new Map<Address, DesiredResource>(docs.map((d) => [d.resource.address, d.resource]));
  const out: Finding[] = [];
  for (const d of docs) {
    const def = managedDefinition(d.resource.kind);
    for (const ref of def?.references(d.resource.spec) ?? []) {
      const finding = checkReference(ref, declared);
      if (finding) out.push(at(d, ['spec', ...finding.path], finding.code, finding.message));
    }
  }
  return out;
}

function checkReference(
  ref: SpecRef,
  declared: ReadonlyMap<Address, DesiredResource>,
): { path: readonly (string | number)[]; code: string; message: string } | null {
  const target = managedDefinition(ref.kind);
  if (!target || !ref.declaredOnly || typeof ref.ref !== 'string') return null;
  const names = [...declared.values()].filter((r) => r.kind === ref.kind).map((r) => r.name);
  const field = String(ref.path.at(-1) ?? target.noun);
  const resource = declared.get(`${ref.kind}/${ref.ref}`);
  if (!resource) {
    const renamed = [...declared.values()].find((r) => r.kind === ref.kind && r.previousNames?.includes(ref.ref as string));
    const message = renamed
      ? `${target.noun} '${ref.ref}' was renamed: ${renamed.address} lists it in metadata.previousNames; refer to '${renamed.name}'`
      : `${target.noun} '${ref.ref}' is not the metadata.name of any ${ref.kind} manifest${didYouMean(ref.ref, names)} (for a ${target.noun} obsync does not manage, use ${field}: {id: ...})`;
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
      ? `${noun} '${part.ref}' of ${resource.address} was renamed to '${renamed}' (its previousKeys list '${part.ref}'); refer to '${renamed}'`
      : `${noun} '${part.ref}' is not a ${noun} key of ${resource.address}${didYouMean(part.ref, keys)} (keys: ${keys.join(', ') || 'none'})`;
  return { path: part.path, code: `unknown-${slug(noun)}`, message };
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
