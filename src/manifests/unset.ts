/**
 * `validate --allow-missing-env` (the fork pull request's check, without secrets): a document
 * with an unset `${env:}` (or an unreadable `${file:}`) is still checked for everything that does
 * not depend on the missing value. Each missing value is given two different stand-ins the field
 * accepts, and the document is validated with each: a problem found with both does not depend on
 * the value (an error, as without the flag); one found with only one does (not checked). The
 * document then takes part in the checks across documents (references, tile keys) as the
 * resource of the first stand-in, except where a check reads a missing value. Such a resource is
 * only ever checked: validate is the only reader that asks for stand-ins, and it writes nothing.
 */
import type { Document, LineCounter } from 'yaml';
import * as z from 'zod';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { setOwn } from '../core/json.js';
import type { Kind } from '../core/plan.js';
import { specSchemas } from '../kinds/manifest.js';
import { managedDefinition } from '../kinds/registry.js';
import { validateDocument, type LoadedDocument, type Locate } from './document.js';
import { statedIdentity, type FailedDocument } from './parse.js';
import { documentStart } from './positions.js';
import { schemasAt } from './schema-walk.js';

type Path = readonly PropertyKey[];

export interface StandInCheck {
  /** The document as the first stand-ins make it, when it loads with them. */
  loaded?: LoadedDocument;
  /** Problems that do not depend on the missing values. */
  diagnostics: Diagnostic[];
  /** Why the document cannot take part in the checks across documents (it does not load without the values). */
  unchecked?: string;
}

/** Validates a document whose values at `missing` (full document paths) are unset. */
export function checkWithStandIns(
  file: string,
  doc: Document,
  lineCounter: LineCounter,
  value: unknown,
  locate: Locate,
  missing: readonly Path[],
  where: number,
): StandInCheck {
  const kind = (value as { kind?: unknown }).kind;
  const schema = typeof kind === 'string' && kind in specSchemas ? specSchemas[kind as Kind] : undefined;
  const named = missing.map(formatPath).join(', ');
  // Outside spec (apiVersion, kind, metadata): the object's identity is unknown, nothing refers to it reliably.
  if (!schema || missing.some((p) => p[0] !== 'spec')) return { diagnostics: [], unchecked: `its identity needs ${named}` };
  const pairs = missing.map((path, i) => standInPair(schema, path.slice(1), `${where}-${i}`));
  if (pairs.some((p) => p === undefined)) return { diagnostics: [], unchecked: `no value of ${named} could stand in for the unset one` };
  const withStandIn = (side: 0 | 1) =>
    validateDocument(
      file,
      doc,
      lineCounter,
      withValues(
        value,
        missing,
        pairs.map((p) => p?.[side]),
      ),
      locate,
    );
  const a = withStandIn(0);
  const b = withStandIn(1);
  const unset = new Set(missing.map(formatPath));
  const inB = new Set(b.diagnostics.map(problemKey));
  const diagnostics = a.diagnostics.filter((d) => inB.has(problemKey(d)) && !unset.has(d.path ?? ''));
  const loaded = a.loaded ?? b.loaded;
  if (!loaded) return diagnostics.length > 0 ? { diagnostics } : { diagnostics, unchecked: `it does not load without ${named}` };
  const parts = managedDefinition(loaded.resource.kind)?.parts;
  const sameKeys =
    a.loaded && b.loaded && parts ? sameList(parts.keys(a.loaded.resource.spec), parts.keys(b.loaded.resource.spec)) : !parts;
  return { loaded: { ...loaded, unset, ...(sameKeys ? {} : { unsetKeys: true }) }, diagnostics };
}

const problemKey = (d: Diagnostic) => `${d.path ?? ''}\u0000${d.code}`;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Two values the field takes, different when it takes more than one: its own choices (an enum,
 * literals) first, then plain values of each type; a string is made unique to the document and
 * path, so two documents' stand-ins never look like one name.
 */
function standInPair(schema: z.ZodType, specPath: Path, unique: string): [unknown, unknown] | undefined {
  const schemas = schemasAt(schema, specPath);
  if (schemas.length === 0) return undefined;
  const accepts = (v: unknown) => schemas.some((s) => s.safeParse(v).success);
  const candidates = [
    ...schemas.flatMap(choices),
    `obsync-unset-${unique}-a`,
    `obsync-unset-${unique}-b`,
    // Far apart, so a check that compares the value with another field passes with one of them.
    -1_000_000,
    1_000_000,
    0,
    1,
    0.5,
    true,
    false,
    '5m',
    '1h',
    `https://unset-${unique}-a.invalid/`,
    `https://unset-${unique}-b.invalid/`,
  ];
  const fit = candidates.filter(accepts);
  const [first] = fit;
  if (first === undefined) return undefined;
  return [first, fit.find((v) => v !== first) ?? first];
}

function choices(schema: z.ZodType): unknown[] {
  if (schema instanceof z.ZodEnum) return [...(schema.options as unknown[])];
  if (schema instanceof z.ZodLiteral) return [...(schema.values as Set<unknown>)];
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap(choices);
  if (schema instanceof z.ZodPipe) return choices(schema.in as z.ZodType);
  const inner = (schema._zod.def as { innerType?: z.ZodType }).innerType;
  return inner ? choices(inner) : [];
}

/** A copy of the document's value with the given values at the paths. */
function withValues(value: unknown, paths: readonly Path[], values: readonly unknown[]): unknown {
  const copy = structuredClone(value);
  paths.forEach((path, i) => {
    let node = copy as Record<string, unknown>;
    for (const seg of path.slice(0, -1)) node = node[String(seg)] as Record<string, unknown>;
    const last = path.at(-1);
    if (last !== undefined) setOwn(node, String(last), values[i]);
  });
  return copy;
}

/** validate --allow-missing-env: the warning of an unset value says that it, and what depends on it, is not checked. */
export function notChecked(d: Diagnostic): Diagnostic {
  return d.code === 'missing-reference' ? { ...d, message: `${d.message}; not checked: this value and what depends on it` } : d;
}

/** A document that does not load without its unset values: nothing can be checked against it. */
export function uncheckedDocument(file: string, doc: Document, lc: LineCounter, why: string): Diagnostic {
  const { kind, name } = statedIdentity(file, doc, lc);
  const what = typeof kind === 'string' && name ? `${kind}/${name}` : 'this document';
  return {
    severity: 'warning',
    code: 'not-checked',
    message: `${what} is not checked against the other manifests (references to it and from it): ${why}`,
    file,
    ...documentStart(doc, lc),
  };
}

/** A failed document that only lacks unset values: references to it are not checked; its name is unknown when it is one of them. */
export function uncheckedIdentity(f: FailedDocument, unchecked: string | undefined, missing: ReadonlyMap<string, unknown>): FailedDocument {
  if (unchecked === undefined) return f;
  const { name, ...rest } = f;
  return { ...rest, ...(name !== undefined && !missing.has('metadata.name') ? { name } : {}), unchecked: true };
}
