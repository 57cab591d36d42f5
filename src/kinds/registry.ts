/**
 * Every kind obsync knows, one line each (one folder per kind: ./<kind>/definition.ts). Managed
 * kinds have manifests; the others are read and referred to by name until their folder grows a
 * manifest schema. The `Kind` type, the apply order and every list of kinds derive from here.
 */
import type * as z from 'zod';
import type { AnyKind as CoreAnyKind, Kind as CoreKind } from '../core/kind-name.js';
import { requireCollection, type CollectionPort, type ServicePort } from '../core/ports.js';
import { alert } from './alert/definition.js';
import { connection } from './connection/definition.js';
import { dashboard } from './dashboard/definition.js';
import type { KindDefinition, ManagedKind } from './kind.js';
import { pipe } from './pipe/definition.js';
import { savedSearch } from './saved-search/definition.js';
import { source } from './source/definition.js';
import { webhook } from './webhook/definition.js';
import { role } from './role/definition.js';
import { teamMember } from './team-member/definition.js';
import { teamSettings } from './team-settings/definition.js';
import { pipeSshKey } from './pipe-ssh-key/definition.js';

export const REGISTRY = [
  dashboard,
  alert,
  pipe,
  source,
  webhook,
  savedSearch,
  connection,
  role,
  teamMember,
  teamSettings,
  pipeSshKey,
] as const;

type Entry = (typeof REGISTRY)[number];
/** Every kind obsync reads. */
export type AnyKind = Entry['kind'];
/** The kinds manifests declare. */
export type Kind = Extract<Entry, { managed: true }>['kind'];
/** The live form of a kind's objects. */
export type LiveOf<K extends AnyKind> = z.output<Extract<Entry, { kind: K }>['live']>;

// Core names the kinds without importing this folder (src/core/kind-name.ts): both lists must agree.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const coreNamesAgree: [Same<AnyKind, CoreAnyKind>, Same<Kind, CoreKind>] = [true, true];
void coreNamesAgree;

/** A kind's collection with its live form typed (the remote adapter parses every object with the kind's live schema). */
export function collectionOf<K extends AnyKind>(port: ServicePort, kind: K): CollectionPort<LiveOf<K>> {
  return requireCollection(port, kind) as CollectionPort<LiveOf<K>>;
}

const ALL: readonly KindDefinition[] = REGISTRY;

/** Kinds in dependency order: a kind comes after the other kinds its objects refer to (registry order otherwise). */
export const KIND_ORDER: readonly KindDefinition[] = dependencyOrder(ALL);

/** Managed kinds in dependency order (creates and updates in this order, deletes in reverse). */
export const MANAGED: readonly ManagedKind[] = KIND_ORDER.filter((d): d is ManagedKind => d.managed);

/** The manifest kinds in registry order (as messages list them). */
export const KINDS = ALL.filter((d): d is ManagedKind => d.managed).map((d) => d.kind) as readonly Kind[] as readonly [Kind, ...Kind[]];

const BY_KIND: ReadonlyMap<string, KindDefinition> = new Map(ALL.map((d) => [d.kind, d]));

export function definitionOf(kind: AnyKind): KindDefinition {
  const def = BY_KIND.get(kind);
  if (!def) throw new Error(`no definition for kind ${kind}`);
  return def;
}

/** The definition of a managed kind; undefined for a kind obsync only reads. */
export function managedDefinition(kind: string): ManagedKind | undefined {
  const def = BY_KIND.get(kind);
  return def?.managed ? def : undefined;
}

export function isKind(value: unknown): value is Kind {
  return typeof value === 'string' && managedDefinition(value) !== undefined;
}

/** `Dashboard/checkout` → its kind and name; null when it is not the address of a managed kind. */
export function parseAddress(address: string): { kind: Kind; name: string } | null {
  const slash = address.indexOf('/');
  if (slash <= 0) return null;
  const kind = address.slice(0, slash);
  const name = address.slice(slash + 1);
  return isKind(kind) && name !== '' ? { kind, name } : null;
}

/** The folder of a kind under src/kinds: `SavedSearch` → `saved-search`. */
export function folderOf(kind: string): string {
  return kind.replace(/(?<=[a-z0-9])([A-Z])/g, '-$1').toLowerCase();
}

function dependencyOrder(defs: readonly KindDefinition[]): KindDefinition[] {
  const out: KindDefinition[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (def: KindDefinition): void => {
    const seen = state.get(def.kind);
    if (seen === 'done') return;
    if (seen === 'visiting') throw new Error(`kinds refer to each other in a cycle through ${def.kind}`);
    state.set(def.kind, 'visiting');
    for (const dep of def.refersTo) {
      // Objects of one kind may refer to each other (a log source to its trace source): the
      // planner orders those object by object.
      if (dep === def.kind) continue;
      const target = defs.find((d) => d.kind === dep);
      if (target) visit(target);
    }
    state.set(def.kind, 'done');
    out.push(def);
  };
  defs.forEach(visit);
  return out;
}
