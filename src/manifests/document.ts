/** Validates one parsed document: the envelope, then the kind's spec (errors under `spec.`). */
import { hash } from 'node:crypto';
import type { Document, LineCounter } from 'yaml';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { NO_ENTRIES, sharedWhenEmpty } from '../core/freeze.js';
import { addressOf, type Kind } from '../core/plan.js';
import { KINDS, managedDefinition } from '../kinds/registry.js';
import type { DesiredResource } from '../core/resource.js';
import { envelopeSchema } from '../kinds/envelope.js';
import { specSchemas } from '../kinds/manifest.js';
import { issuesToDiagnostics } from './issues.js';
import { documentStart, positionAt, type Position } from './positions.js';
import { setOwn } from '../core/json.js';
import { ignorePathProblem } from './ignore-rules.js';

/** Where a path of a document is in its file. */
export type Locate = (path: readonly PropertyKey[]) => Position;

/**
 * A valid document and the resource it became. It keeps no YAML tree (a tree costs some 60 times
 * its text, and a daemon keeps the loads of unchanged files): `locate` finds a position for a
 * finding made later, across documents.
 */
export interface LoadedDocument {
  file: string;
  locate: Locate;
  resource: DesiredResource;
  /** validate --allow-missing-env: the paths whose values are unset (stand-ins in the resource); checks that read them are not made. */
  unset?: ReadonlySet<string>;
  /** Its part keys (tile keys) depend on an unset value: references to them are not checked. */
  unsetKeys?: true;
}

/**
 * A resource is a function of its interpolated document, whose JSON says all of it (a non-finite
 * number, which JSON would write as null, is refused before a document becomes a resource).
 */
export function documentDigest(value: unknown): string {
  return hash('sha256', JSON.stringify(value), 'base64');
}

const isKind = (k: unknown): k is Kind => typeof k === 'string' && (KINDS as readonly string[]).includes(k);

export function validateDocument(
  file: string,
  doc: Document,
  lineCounter: LineCounter,
  value: unknown,
  locate: Locate,
): { loaded?: LoadedDocument; diagnostics: Diagnostic[] } {
  const start = documentStart(doc, lineCounter);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      diagnostics: [
        {
          severity: 'error',
          code: 'not-a-manifest',
          message: 'a manifest is a mapping with apiVersion, kind, metadata and spec',
          file,
          ...start,
        },
      ],
    };
  }
  const record = value as Record<string, unknown>;
  // obsync.yaml may sit among the manifests (default path "."): it is not a manifest.
  if (record.kind === 'Config') return { diagnostics: [] };
  const base = { file, doc, lineCounter };
  const envelope = envelopeSchema.safeParse(value);
  const name = envelope.success ? envelope.data.metadata.name : undefined;
  const address = isKind(record.kind) && name !== undefined ? addressOf(record.kind, name) : undefined;
  const diagnostics = envelope.success
    ? []
    : issuesToDiagnostics(envelope.error.issues, { ...base, schema: envelopeSchema, value, basePath: [], ...(address ? { address } : {}) });
  if (!isKind(record.kind)) return { diagnostics };
  // A missing spec is already reported by the envelope.
  if (record.spec === undefined) return { diagnostics };
  const schema = specSchemas[record.kind];
  const spec = schema.safeParse(record.spec);
  if (!spec.success)
    diagnostics.push(
      ...issuesToDiagnostics(spec.error.issues, {
        ...base,
        schema,
        value: record.spec,
        basePath: ['spec'],
        ...(address ? { address } : {}),
      }),
    );
  if (!envelope.success || !spec.success || name === undefined || address === undefined) return { diagnostics };
  const fields = referencePositions(record.kind, spec.data, doc, lineCounter);
  const resource: DesiredResource = {
    kind: record.kind,
    name,
    address,
    // Most manifests have none: one shared empty record.
    labels: sharedWhenEmpty(envelope.data.metadata.labels ?? NO_ENTRIES),
    spec: spec.data,
    source: { file, ...start, ...(fields ? { fields } : {}) },
    digest: documentDigest(value),
  };
  const previous = envelope.data.metadata.previousNames;
  if (previous) resource.previousNames = previous;
  const waivers = envelope.data.metadata.waivers;
  if (waivers) resource.waivers = waivers;
  const ignore = envelope.data.metadata.ignore;
  if (ignore) {
    const problems = ignoreProblems(record.kind, ignore, (i) => ({ file, ...locate(['metadata', 'ignore', i]), address }));
    if (problems.length > 0) return { diagnostics: [...diagnostics, ...problems] };
    resource.ignore = ignore.map((path) => ({ path, from: 'metadata.ignore' }));
  }
  return { loaded: { file, locate, resource }, diagnostics };
}

/** The positions of the fields that name other objects (and their parts), keyed by their YAML path. */
function referencePositions(kind: Kind, spec: unknown, doc: Document, lc: LineCounter): Record<string, Position> | undefined {
  const refs = managedDefinition(kind)?.references(spec) ?? [];
  if (refs.length === 0) return undefined;
  const out: Record<string, Position> = {};
  for (const ref of refs) {
    for (const path of ref.part ? [ref.path, ref.part.path] : [ref.path]) {
      const full = ['spec', ...path];
      setOwn(out, formatPath(full), positionAt(doc, lc, full));
    }
  }
  return out;
}

/** Each `metadata.ignore` path that names no ignorable field of the kind: an error at its line. */
function ignoreProblems(
  kind: Kind,
  paths: readonly string[],
  at: (index: number) => Pick<Diagnostic, 'file' | 'line' | 'col' | 'address'>,
): Diagnostic[] {
  return paths.flatMap((path, i) => {
    const problem = ignorePathProblem(kind, path);
    return problem === undefined
      ? []
      : [{ severity: 'error' as const, code: 'ignore-path', message: problem, path: `metadata.ignore[${i}]`, ...at(i) }];
  });
}
