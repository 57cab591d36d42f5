/**
 * A kind definition owns everything about its kind: its live form and where each API variant
 * serves it, how other objects name it, what the service deletes with it, and — for kinds obsync
 * manages — the manifest schema, identity and natural key, normalisation, references, payloads,
 * update calls and cross-document checks. One folder per kind implements it; `registry.ts` lists
 * them. Everything here is pure: the planner, applier and remote client are generic over it.
 */
import type * as z from 'zod';
import type { LiveObject } from '../core/live.js';
import type { UpdateCall } from '../core/plan.js';
import type { KindRoutes, Variant } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json, JsonObject } from '../core/wire.js';
import type { NameOrId, RefContext, TokenContext } from './refs.js';
import type { MarkField } from './mark.js';
import type { Summariser } from './summary.js';
import type { AnyKind, Kind } from '../core/kind-name.js';

/** A kind whose objects the service deletes when an object of `parent` goes (or loses a part). */
export interface CascadeRule<Live> {
  parent: AnyKind;
  /** The parent's id this object hangs on, if any. */
  parentId(live: Live): string | null | undefined;
  /** The parent's part (tile) it hangs on: an update that drops the part takes the object along. */
  partId?(live: Live): string | null | undefined;
}

/** An object a live object refers to: a tile's source, an alert's tile (`part`), saved search and webhooks. */
export interface LiveRef {
  kind: AnyKind;
  id: string;
  /** The referred object's part (a dashboard's tile). */
  part?: string;
}

interface KindCommon<K extends AnyKind, Live extends LiveObject> {
  readonly kind: K;
  /** Human word for messages: `saved search`. */
  readonly noun: string;
  /** Kinds its objects refer to: those are planned and applied first (deletes in reverse). */
  readonly refersTo: readonly AnyKind[];
  /** The live form; responses are parsed with it at the HTTP boundary. */
  readonly live: z.ZodType<Live>;
  /** Where each variant serves it; a variant without an entry does not have this kind. */
  readonly routes: Readonly<Partial<Record<Variant, KindRoutes>>>;
  /** Read for every plan, or only when a manifest declares this kind (a capability not every target has). */
  readonly read: 'always' | 'when-declared';
  /** Exported only when `obsync export --kind` names it (people and their roles are not swept up by a plain export). */
  readonly exportOnRequest?: boolean;
  /** The name other objects use to refer to a live object (absent: by {id} only). */
  displayName?(live: Live): string;
  /** Its display names carry measures (an alert's `p99 above 900 ms`): export leaves them out of the names it derives. */
  readonly namedWithMeasures?: boolean;
  /** Fields the service changes on its own: they do not make an object "moved" since a plan. */
  readonly volatile?: readonly string[];
  /** What takes this kind's objects along when it is deleted (or updated). */
  readonly deletedWith?: readonly CascadeRule<Live>[];
  /**
   * Secret values the service returns in a live object (a webhook's URL): masked wherever obsync
   * prints or writes them (plans, logs), also for an object no manifest declares any more.
   */
  liveSecrets?(live: Live): string[];
  /** What a live object refers to, for the plan's impact predictions (what reads a source, which alerts sit on a tile). */
  liveRefs?(live: Live): LiveRef[];
  /**
   * Objects the service refuses to delete while this one refers to them (an alert's first
   * channel: the webhook answers 409). Read from a live object or from a create or update body.
   */
  holds?(body: { readonly [key: string]: Json | undefined }): LiveRef[];
}

/** A kind obsync reads and lets manifests refer to by name, but does not manage (yet). */
export interface ReadableKind<K extends AnyKind = AnyKind, Live extends LiveObject = LiveObject> extends KindCommon<K, Live> {
  readonly managed: false;
}

export type Canonical = { ok: true; value: Json } | { ok: false; errors: string[] };

/** What a kind's live canonical form is computed against. */
export interface LiveView {
  tokens: TokenContext;
  /** This object's parts paired with the manifest: key → live part id (dashboard tiles). */
  parts: ReadonlyMap<string, string> | undefined;
  /** The desired comparable form it is compared with (kinds that own only declared fields take its shape). */
  expected: Json;
  /** Fingerprints of the write-only values obsync last sent, by path. */
  secrets: Readonly<Record<string, string>>;
  /** The keyed fingerprint of a value, as sensitive desired values are compared (a readable secret such as a webhook URL). */
  fingerprint(value: Json): string;
}

/** A reference a spec makes: the cross-document checks, and the names the applier's re-diff needs, come from these. */
export interface SpecRef {
  kind: AnyKind;
  ref: NameOrId;
  /** Where in the spec, e.g. ['dashboard'] or ['tiles', 2, 'config', 'source']. */
  path: readonly (string | number)[];
  /** A name must be the metadata.name of a manifest (an object obsync does not manage is named by {id}). */
  declaredOnly?: boolean;
  /** A keyed part (tile) of the referenced object. */
  part?: { ref: NameOrId; path: readonly (string | number)[] };
}

/** The sub-objects a manifest keys by a stable key (dashboard tiles). */
export interface PartRules<Spec, Live> {
  /** What a part is called in messages: `tile`. */
  readonly noun: string;
  /** Desired part keys in manifest order. */
  keys(spec: Spec): string[];
  /** Parts whose key was renamed: key → the keys it had before (`pair` finds their ids under those). */
  previousKeys(spec: Spec): ReadonlyMap<string, readonly string[]>;
  /** Pairs desired parts with the live object's parts: key → part id (the inventory's map first). */
  pair(spec: Spec, live: Live, known: Readonly<Record<string, string>> | undefined): Map<string, string>;
  /** The part ids of a stored object, in the order they were sent (after a write). */
  idsInOrder(live: Live): string[];
  /** Part ids an update of `spec` keeps alive for the objects hanging on them. */
  survivingParts(spec: Spec, pairing: ReadonlyMap<string, string>): ReadonlySet<string>;
  /** The keys an exported manifest gives a live object's parts: part id → key (unique, deterministic). */
  exportKeys(live: Live): ReadonlyMap<string, string>;
}

/**
 * What a kind's `toManifest` asks while turning a live object into a manifest spec (`obsync
 * export`). References come back as manifests name them: the metadata.name of an exported
 * object, else a display name unique on the target, else `{id}`.
 */
export interface ExportContext {
  /** A reference to another object (a tile's source, a search alert's saved search, a channel's webhook). */
  ref(kind: AnyKind, id: string): NameOrId;
  /** A reference that must name a manifest (an alert's dashboard): its metadata.name when exported, else `{id}`. */
  declaredRef(kind: AnyKind, id: string): NameOrId;
  /** A part (tile) of a referenced object: its exported key when the object is exported, else `{id}`. */
  partRef(kind: AnyKind, parentId: string, partId: string): NameOrId;
  /** Whether this object's display name is unique among the live objects of its kind. */
  uniqueDisplayName(): boolean;
  /** A sensitive value: the manifest gets a `${env:NAME}` placeholder; the value is never written. */
  secret(path: string, value: string): string;
  /** Something whoever reads the export must know about this object (e.g. a value the service never returns). */
  note(text: string): void;
  /**
   * The keys this object's own parts (tiles) already have in its manifest, by part id (`obsync
   * pull` keeps them); parts not listed get keys that do not clash with these. Absent: export's own keys.
   */
  readonly partKeys?: ReadonlyMap<string, string>;
}

export interface UpdateContext {
  refs: RefContext;
  fingerprints: Readonly<Record<string, string>>;
  changedPaths: readonly string[];
  /** key → live part id, when the kind has parts. */
  parts: ReadonlyMap<string, string> | undefined;
}

/** How an update is sent: one body (PUT), or several calls (pipes). */
export type UpdatePlan = { payload: JsonObject } | { calls: UpdateCall[]; settle: boolean };

/** A problem across manifests, found by a kind's cross-document check. */
export interface CrossFinding {
  resource: DesiredResource;
  path: readonly (string | number)[];
  code: string;
  message: string;
}

export interface ManagedKind<K extends Kind = Kind, Spec = unknown, Live extends LiveObject = LiveObject> extends KindCommon<K, Live> {
  readonly managed: true;
  /** What a manifest of this kind is, for editors (the schema's description of the document). */
  readonly description: string;
  /** The manifest spec schema (./schema.ts of the kind's folder). */
  readonly spec: z.ZodType<Spec>;
  readonly creatable: boolean;
  readonly deletable: boolean;
  /** Every reference a spec makes (each one `canonicalDesired` resolves must be listed). */
  references(spec: Spec): SpecRef[];
  /** Natural key of a desired object, as `liveKey` gives it; null while a referenced object has no id yet. */
  desiredKey(res: DesiredResource<Spec>, refs: RefContext): string | null;
  /** Natural key(s) of a live object; pipes answer both their id and their name form. */
  liveKey(live: Live): string | readonly string[];
  /** Natural key of a create's body once its references are ids (a lost create is found by it). */
  bodyKey?(body: JsonObject): string;
  readonly parts?: PartRules<Spec, Live>;
  /** Comparable form of the desired object; sensitive values as `{$sensitive: fingerprint}`. */
  canonicalDesired(res: DesiredResource<Spec>, refs: RefContext, fingerprints: Readonly<Record<string, string>>): Canonical;
  /** Comparable form of a live object, in the desired object's terms. */
  canonicalLive(live: Live, view: LiveView): Json;
  /** Body of a create. */
  createPayload?(res: DesiredResource<Spec>, refs: RefContext, fingerprints: Readonly<Record<string, string>>): JsonObject;
  /** What an update sends, given what changed. */
  update(res: DesiredResource<Spec>, live: Live, ctx: UpdateContext): UpdatePlan;
  /** The body that creates the object again when an update finds it gone (server-assigned ids dropped). */
  recreatePayload?(updatePayload: JsonObject): JsonObject;
  /** After update calls: whether the object has settled (left its transitional states). */
  settled?(live: Live): boolean;
  /** Plain-language notes for an update step. */
  notes?(res: DesiredResource<Spec>, live: Live): string[];
  /** Checks across all loaded manifests (each finding rejects its resource). */
  crossCheck?(resources: readonly DesiredResource[]): CrossFinding[];
  /**
   * The manifest spec of a live object (`obsync export`): the inverse of the normalisation —
   * server-owned fields and server defaults left out, references as names, sensitive values as
   * placeholders — such that planning it against the same object finds no change.
   */
  toManifest(live: Live, ctx: ExportContext): JsonObject;
  /** The change in the kind's own words for reviewers (./summary.ts); absent: field by field. */
  readonly summarise?: Summariser;
  /** Where its objects carry a target's "managed in Git" mark (./mark.ts); absent: they carry none. */
  readonly markField?: MarkField;
}

export type KindDefinition = ReadableKind | ManagedKind;

/** The natural key the inventory records for a live object (the first, when the kind has several). */
export function naturalKeyOf<Live extends LiveObject>(def: { liveKey(live: Live): string | readonly string[] }, live: Live): string {
  const key = def.liveKey(live);
  return typeof key === 'string' ? key : (key[0] ?? '');
}
