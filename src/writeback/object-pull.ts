/**
 * One drifted object's manifest brought to its live state: the document's value as written (its
 * `${…}` templates replaced by what they resolved to), the live object in manifest terms, the
 * fewest edits between them that a plan accepts (./minimal.ts), and each edit either made or
 * refused — never a literal over a `${…}` template, a sensitive field, or a value an anchor
 * shares with other places (the YAML would change them too).
 */
import { isAlias, isMap, isNode, isSeq, visit, type Document } from 'yaml';
import type { InventoryEntry } from '../core/inventory.js';
import { isJsonObject, setOwn } from '../core/json.js';
import type { LiveObject } from '../core/live.js';
import type { Change } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import { escapeTemplate } from '../export/inert-templates.js';
import type { ManagedKind } from '../kinds/kind.js';
import { specSchemas } from '../kinds/manifest.js';
import { fieldLookup } from '../manifests/fields.js';
import { holdsReference, literalText } from '../manifests/interpolate.js';
import type { PlanContext } from '../planner/context.js';
import { changesOf } from '../planner/compare-forms.js';
import { diffValues } from './diff.js';
import { applyEdits, editPath, editValue, valueAtPath, type Edit, type Path } from './edits.js';
import { holdsSecretMark, liveManifest, type LiveNames } from './live-manifest.js';
import { minimalEdits } from './minimal.js';

export type RefusalReason = 'interpolated' | 'sensitive' | 'anchor' | 'unresolved';

/** An edit pull will not make, with the two values (as the manifest resolves and as the service has them). */
export interface Refused {
  path: Path;
  reason: RefusalReason;
  manifest?: Json;
  live?: Json;
  /** The manifest's text there, when it is a template (`${var:replicas}`). */
  written?: string;
  /** For `unresolved`: a change a plan would still show (canonical path, values masked). */
  change?: Change;
}

export interface ObjectPull {
  /** The edits to make, document paths and values as written (`$${` for a literal `${`). */
  edits: Edit[];
  /** The same edits with their values as read (for the summary). */
  shown: { edit: Edit; before: Json | undefined }[];
  refused: Refused[];
}

export interface ObjectInput {
  ctx: PlanContext;
  def: ManagedKind;
  res: DesiredResource;
  entry: InventoryEntry | undefined;
  live: LiveObject;
  names: LiveNames;
  /** The plan's changes for the object. */
  changes: readonly Change[];
  doc: Document;
  /** The document's value as written. */
  written: Json;
}

export function pullObject(input: ObjectInput): ObjectPull {
  const { def, res, doc } = input;
  const writtenSpec = isJsonObject(input.written) ? (input.written.spec ?? null) : null;
  const resolved = resolvedAsRead(writtenSpec, res.spec as Json);
  const live = liveManifest(def, res, input.entry, input.live, input.names);
  const candidates = diffValues(resolved, live).filter((e) => !holdsSecretMark(editValue(e)));
  const judge = (edits: readonly Edit[]) => {
    const parsed = def.spec.safeParse(applyEdits(resolved, edits));
    if (!parsed.success) return undefined;
    const { digest: _digest, ...rest } = res;
    const changes = changesOf(input.ctx, def, { ...rest, spec: parsed.data }, input.entry, input.live);
    return Array.isArray(changes) ? changes : undefined;
  };
  const minimal = minimalEdits(candidates, input.changes, judge);
  const sensitive = fieldLookup(specSchemas[def.kind], []);
  const shared = sharedByAnchors(doc);
  const out: ObjectPull = { edits: [], shown: [], refused: [] };
  for (const edit of minimal.edits) {
    const path = editPath(edit);
    const replaced = edit.op === 'set' || edit.op === 'remove' ? valueAtPath(writtenSpec, path) : undefined;
    const before = replaced === undefined ? undefined : valueAtPath(resolved, path);
    const value = editValue(edit);
    const reason =
      sensitive(path).sensitive || sensitiveWithin(sensitive, path, value) || sensitiveWithin(sensitive, path, replaced)
        ? 'sensitive'
        : templated(replaced)
          ? 'interpolated'
          : shared(['spec', ...edit.path])
            ? 'anchor'
            : undefined;
    if (reason) {
      const written = typeof replaced === 'string' ? replaced : undefined;
      out.refused.push({
        path,
        reason,
        ...(before === undefined ? {} : { manifest: before }),
        ...(value === undefined ? {} : { live: value }),
        ...(reason === 'interpolated' && written !== undefined ? { written } : {}),
      });
      continue;
    }
    const shown = { ...edit, path: ['spec', ...edit.path] } as Edit;
    out.shown.push({ edit: shown, before });
    out.edits.push(shown.op === 'remove' ? shown : { ...shown, value: escaped(shown.value) });
  }
  for (const change of minimal.residual) out.refused.push({ path: [], reason: change.sensitive ? 'sensitive' : 'unresolved', change });
  return out;
}

/** Whether a value at `path` has a sensitive field inside it (a map that holds a credential). */
function sensitiveWithin(field: ReturnType<typeof fieldLookup>, path: Path, value: Json | undefined): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => {
    const at = [...path, Array.isArray(value) ? Number(k) : k];
    return field(at).sensitive || sensitiveWithin(field, at, v);
  });
}

function templated(value: Json | undefined): boolean {
  if (typeof value === 'string') return holdsReference(value);
  if (Array.isArray(value)) return value.some(templated);
  if (isJsonObject(value)) return Object.values(value).some(templated);
  return false;
}

/**
 * The spec as the manifest reads once interpolated: each string holding a reference as it
 * resolved (from the loaded resource, at the same path), each `$${` a literal `${`.
 */
export function resolvedAsRead(written: Json, spec: Json, path: (string | number)[] = []): Json {
  if (typeof written === 'string') return holdsReference(written) ? (valueAtPath(spec, path) ?? null) : literalText(written);
  if (Array.isArray(written)) return written.map((item, i) => resolvedAsRead(item, spec, [...path, i]));
  if (isJsonObject(written)) {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(written)) setOwn(out, k, resolvedAsRead(v, spec, [...path, k]));
    return out;
  }
  return written;
}

/** A value as a manifest writes it: every `${` of the service's text as `$${` (data is never code). */
function escaped(value: Json): Json {
  if (typeof value === 'string') return escapeTemplate(value);
  if (Array.isArray(value)) return value.map(escaped);
  if (isJsonObject(value)) {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, escaped(v));
    return out;
  }
  return value;
}

/**
 * Whether the value at a document path is shared through YAML anchors: it is an alias, lies
 * inside an anchored node some alias repeats, or holds one. An edit there would change every
 * place that shares it (or break the aliases): refused.
 */
function sharedByAnchors(doc: Document): (path: Path) => boolean {
  const used = new Set<string>();
  visit(doc, {
    Alias(_key, node) {
      used.add(node.source);
    },
  });
  if (used.size === 0) return () => false;
  const repeated = (node: unknown) => isAlias(node) || (isNode(node) && node.anchor !== undefined && used.has(node.anchor));
  return (path) => {
    let node: unknown = doc.contents;
    for (const seg of path) {
      if (repeated(node)) return true;
      node = isMap(node) || isSeq(node) ? node.get(seg, true) : undefined;
    }
    if (!isNode(node)) return false;
    let found = false;
    visit(node, {
      Node(_key, n) {
        if (!repeated(n)) return undefined;
        found = true;
        return visit.BREAK;
      },
      Alias() {
        found = true;
        return visit.BREAK;
      },
    });
    return found || repeated(node);
  };
}
