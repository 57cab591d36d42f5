/**
 * `obsync export`, the pure half: live objects → manifests in obsync's format. Generic over the
 * registry: each managed kind's `toManifest` writes its spec; this module only names objects,
 * answers references (metadata.name of an exported object, else a display name unique on the
 * target, else `{id}`), turns sensitive values into `${env:NAME}` placeholders, and renders one
 * file per object. No I/O, no clock: exporting the same live state twice gives the same bytes.
 */
import { stringify } from 'yaml';
import { printable } from '../core/printable.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { Address } from '../core/plan.js';
import type { Json, JsonObject } from '../core/wire.js';
import { API_VERSION } from '../kinds/envelope.js';
import { naturalKeyOf, type ExportContext, type KindDefinition, type ManagedKind } from '../kinds/kind.js';
import { definitionOf, folderOf, MANAGED, type AnyKind, type Kind } from '../kinds/registry.js';
import { envField, envPrefix, exportNames, renames } from './names.js';
import type { ExportInput } from './export-input.js';
import { displayNameOf, ExportRefs } from './export-refs.js';
import { inertSpec } from './inert-templates.js';

export interface ExportedManifest {
  kind: Kind;
  name: string;
  address: Address;
  id: string;
  displayName: string;
  /** The live object's natural key, as the inventory records it. */
  naturalKey: string;
  spec: JsonObject;
  notes: string[];
  /** Relative path in the output directory: `<kind folder>/<name>.yaml`. */
  file: string;
  text: string;
  /** Owned under a name that is not its stable one: the name it would take (see its note). */
  stableName?: string;
}

/** A sensitive value replaced by `${env:name}`. The value stays in memory (for --adopt); it is never written. */
export interface ExportVariable {
  name: string;
  address: Address;
  path: string;
  value: string;
}

export interface ExportResult {
  manifests: ExportedManifest[];
  variables: ExportVariable[];
  /** env.example: the variables to set, without values. */
  envExample: string;
  /**
   * Exported objects whose natural key (a dashboard's name…) other live objects share: a plan
   * cannot tell them apart by it, so it matches them only once obsync owns them (--adopt, import).
   */
  sharedKeys: Address[];
  /** Exported objects kept under the name obsync owns them by, which is not their stable one: how to rename them. */
  renames: { address: Address; to: string }[];
}

export const SCHEMA_FILE = 'obsync.schema.json';

export function exportLive(input: ExportInput): ExportResult {
  const names = new Map<AnyKind, Map<string, string>>();
  const stable = new Map<AnyKind, Map<string, string>>();
  const ownedNames = ownedByKind(input.owned);
  for (const def of MANAGED) {
    const objects = input.objects(def.kind);
    if (!objects) continue;
    const candidates = objects.map((o) => ({ id: o.id, displayName: displayNameOf(def, o) }));
    const owned = ownedNames.get(def.kind) ?? new Map<string, string>();
    const rules = { environment: input.target, measures: def.namedWithMeasures === true };
    names.set(def.kind, exportNames(candidates, folderOf(def.kind), owned, rules));
    stable.set(def.kind, new Map(renames(candidates, folderOf(def.kind), owned, rules).map((r) => [r.id, r.to])));
  }
  const chosen = new Map<AnyKind, Set<string>>();
  for (const def of MANAGED) {
    if (input.kinds && !input.kinds.has(def.kind)) continue;
    const objects = input.objects(def.kind) ?? [];
    const wanted = (o: LiveObject) => (!input.match || input.match.test(displayNameOf(def, o))) && (input.include?.(def.kind, o) ?? true);
    chosen.set(def.kind, new Set(objects.filter(wanted).map((o) => o.id)));
  }
  const refs = new ExportRefs(input, names, chosen);
  const manifests: ExportedManifest[] = [];
  const variables: ExportVariable[] = [];
  for (const def of MANAGED) {
    const ids = chosen.get(def.kind);
    if (!ids) continue;
    const exported = (input.objects(def.kind) ?? [])
      .filter((o) => ids.has(o.id))
      .map((live) => exportOne(def, live, refs, variables, stable.get(def.kind)?.get(live.id)));
    manifests.push(...exported.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }
  variables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const moves = manifests.flatMap((m) => (m.stableName === undefined ? [] : [{ address: m.address, to: m.stableName }]));
  return { manifests, variables, envExample: envExample(variables), sharedKeys: sharedKeys(input, manifests), renames: moves };
}

function exportOne(
  def: ManagedKind,
  live: LiveObject,
  refs: ExportRefs,
  variables: ExportVariable[],
  stableName: string | undefined,
): ExportedManifest {
  const name = refs.nameOf(def.kind, live.id) ?? live.id;
  const address: Address = `${def.kind}/${name}`;
  const notes: string[] = stableName === undefined ? [] : [renameNote(def, name, stableName)];
  const placeholders = new Map<string, string>();
  const ctx: ExportContext = {
    ref: (kind, id) => refs.ref(kind, id),
    declaredRef: (kind, id) => refs.nameOf(kind, id, true) ?? { id },
    partRef: (kind, parentId, partId) => refs.partKey(kind, parentId, partId) ?? { id: partId },
    uniqueDisplayName: () => refs.uniqueDisplayName(def.kind, live.id),
    secret(path, value) {
      const variable = `${envPrefix(def.kind, name)}_${envField(path)}`;
      variables.push({ name: variable, address, path, value });
      const placeholder = `\${env:${variable}}`;
      placeholders.set(path, placeholder);
      return placeholder;
    },
    note: (text) => notes.push(text),
  };
  const spec = inertSpec(def.toManifest(live, ctx), placeholders);
  const displayName = displayNameOf(def, live);
  const file = `${folderOf(def.kind)}/${name}.yaml`;
  const naturalKey = naturalKeyOf(def, live);
  return {
    kind: def.kind,
    name,
    address,
    id: live.id,
    displayName,
    naturalKey,
    spec,
    notes,
    file,
    text: render(def.kind, name, displayName, live.id, spec, notes),
    ...(stableName === undefined ? {} : { stableName }),
  };
}

/** How to move an owned object to its stable name: the rename keeps the object and what refers to it. */
export function renameNote(def: KindDefinition, name: string, stable: string): string {
  return (
    `obsync owns this ${def.noun} as ${name}; its stable name is ${stable} (no threshold or environment in it). To rename it, ` +
    `set metadata.name: ${stable} and metadata.previousNames: [${name}], and change what refers to it by name; the next apply moves ` +
    `the ownership, the ${def.noun} is kept`
  );
}

/** Exported objects whose natural key another live object of their kind has too (exported or not). */
function sharedKeys(input: ExportInput, manifests: readonly ExportedManifest[]): Address[] {
  const counts = new Map<string, number>();
  for (const def of MANAGED) {
    for (const live of input.objects(def.kind) ?? []) {
      const key = `${def.kind}\u0000${naturalKeyOf(def, live)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return manifests.filter((m) => (counts.get(`${m.kind}\u0000${m.naturalKey}`) ?? 0) > 1).map((m) => m.address);
}

function render(kind: Kind, name: string, displayName: string, id: string, spec: JsonObject, notes: readonly string[]): string {
  // Comments are one line each, whatever the service's text holds (a line break would start YAML of its own).
  const header = [
    `# yaml-language-server: $schema=../${SCHEMA_FILE}`,
    `# Exported by obsync export: the ${definitionOf(kind).noun} ${displayName === '' ? '(no name)' : JSON.stringify(displayName)} ` +
      `(id ${printable(id)}).`,
  ];
  for (const note of notes) header.push(`# Note: ${printable(note)}`);
  const doc: { [k: string]: Json } = { apiVersion: API_VERSION, kind, metadata: { name }, spec };
  return `${header.join('\n')}\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

function envExample(variables: readonly ExportVariable[]): string {
  const lines = [
    '# Sensitive values obsync export did not write: set each variable before validate, plan or apply.',
    '# The manifests name them as ${env:NAME}; keep the values out of Git.',
  ];
  for (const v of variables) lines.push(`# ${v.address} spec.${v.path}`, `${v.name}=`);
  return `${lines.join('\n')}\n`;
}

function ownedByKind(entries: readonly InventoryEntry[]): Map<AnyKind, Map<string, string>> {
  const out = new Map<AnyKind, Map<string, string>>();
  for (const e of entries) {
    if (e.status !== 'owned' || e.id === null) continue;
    let byId = out.get(e.kind);
    if (!byId) out.set(e.kind, (byId = new Map<string, string>()));
    byId.set(e.id, e.name);
  }
  return out;
}
