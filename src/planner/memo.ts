/**
 * What the planner keeps between plans of one target, for a daemon that re-plans an unchanged
 * estate every few minutes: per declared object whose canonical forms compared equal, everything
 * that comparison was computed from. When the next plan finds the same inputs, the object is
 * unchanged without computing its forms again.
 *
 * The inputs: the live object (the same object: the remote client hands out the very object it
 * parsed when the item's raw bytes are unchanged, see core/item-memo.ts), the desired spec and
 * labels (deep-equal), the fingerprints of its sensitive values and of the write-only values last
 * sent, the pairing of its parts, and every answer the references gave while the forms were made
 * (replayed: the same questions must get the same answers now, so a renamed source or a
 * re-created dashboard elsewhere invalidates the objects that refer to it). Anything else that
 * could change a form (target, variant, the fingerprint key) is the memo's scope: another scope
 * empties it.
 *
 * What follows from those inputs alone is taken as it was: the pairing of the object's parts (the
 * inventory's part map is an input too), and each kind's index of live objects when its list
 * holds the very same objects.
 *
 * Owned by the caller (the engine, for the daemon) and passed in: the planner stays a function of
 * its inputs. Bounded: it holds the objects of the last plan only.
 */
import type { LiveObject } from '../core/live.js';
import type { Address } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import type { AnyKind } from '../core/kind-name.js';
import { sameItems } from '../core/collections.js';
import { sharedWhenEmpty } from '../core/freeze.js';
import { sameJson } from '../core/json.js';
import type { LiveIndex } from './live-index.js';
import type { RefContext, TokenContext } from '../kinds/refs.js';
import { type RefCall, replay } from './ref-calls.js';
import { SharedCalls } from './shared-calls.js';

/** The inputs of one object's comparison that came out equal. */
interface Unchanged {
  live: LiveObject;
  /**
   * The manifest it was compared as: its document's digest, or (for a resource built in code,
   * which has none) its spec and labels. Never both: holding the spec of every object loaded
   * with a digest would keep the previous load's manifests alive while the next is planned.
   */
  desired: string | { spec: unknown; labels: Readonly<Record<string, string>> };
  fingerprints: Readonly<Record<string, string>>;
  secrets: Readonly<Record<string, string>>;
  parts: ReadonlyMap<string, string> | undefined;
  /** The inventory's part map the parts were paired with. */
  known: Readonly<Record<string, string>> | undefined;
  calls: readonly RefCall[];
}

/** An object as the last plan found it (`PlanMemo.recall`). */
export interface Recalled {
  readonly parts: ReadonlyMap<string, string> | undefined;
}

/** A fixed value whose fingerprint stands for the fingerprint key in a memo's scope: another key, another fingerprint. */
export const KEY_PROBE = 'obsync plan memo';

export class PlanMemo {
  #kept = new Map<Address, Unchanged>();
  #next = new Map<Address, Unchanged>();
  #indexes = new Map<AnyKind, { objects: readonly LiveObject[]; index: LiveIndex }>();
  #orders = new Map<AnyKind, { resources: readonly DesiredResource[]; ordered: readonly DesiredResource[] }>();
  #shared = new SharedCalls();
  #scope: string | undefined;
  /** Objects found unchanged from the memo, and compared in full, in the last plan. */
  readonly stats = { reused: 0, compared: 0 };

  /** Starts a plan; a scope other than the last one's empties the memo. */
  begin(scope: string): void {
    if (scope !== this.#scope) {
      this.#kept = new Map();
      this.#indexes = new Map();
      this.#orders = new Map();
    }
    this.#scope = scope;
    this.#next = new Map();
    this.#shared = new SharedCalls();
    this.stats.reused = 0;
    this.stats.compared = 0;
  }

  /**
   * A kind's declared objects in the order they are planned: the last plan's order when they are
   * the very same objects, all frozen (a daemon's kept loads: nothing can have renamed one since).
   */
  ordered(kind: AnyKind, resources: readonly DesiredResource[], order: () => DesiredResource[]): readonly DesiredResource[] {
    const last = this.#orders.get(kind);
    if (last && sameItems(last.resources, resources)) return last.ordered;
    const ordered = order();
    if (resources.every((r) => Object.isFrozen(r))) this.#orders.set(kind, { resources, ordered });
    else this.#orders.delete(kind);
    return ordered;
  }

  /** A kind's index of live objects: the last plan's when the list holds the very same objects, in the same order. */
  index(kind: AnyKind, objects: readonly LiveObject[], build: () => LiveIndex): LiveIndex {
    const last = this.#indexes.get(kind);
    if (last && sameItems(last.objects, objects)) return last.index;
    const index = build();
    this.#indexes.set(kind, { objects, index });
    return index;
  }

  /**
   * What the last plan found of this object, when the live object, the manifest and the
   * inventory's part map are those it was compared with: its parts' pairing can be taken as it
   * is, and `unchanged` checks the rest. Undefined otherwise.
   */
  recall(
    address: Address,
    live: LiveObject,
    res: DesiredResource,
    known: Readonly<Record<string, string>> | undefined,
  ): Recalled | undefined {
    const last = this.#kept.get(address);
    return last !== undefined && last.live === live && sameKnown(last.known, known) && sameDesired(last, res) ? last : undefined;
  }

  /**
   * Whether the recalled object is unchanged since the last plan: the same secrets (its parts are
   * paired as recalled), and the references answering as they did (asked again, in the same order, so the plan records
   * the same dependencies as a comparison would).
   */
  unchanged(
    recalled: Recalled | undefined,
    res: DesiredResource,
    fingerprints: Readonly<Record<string, string>>,
    secrets: Readonly<Record<string, string>>,
    parts: ReadonlyMap<string, string> | undefined,
    refs: RefContext & TokenContext,
  ): boolean {
    const last = recalled as Unchanged | undefined;
    const same =
      last !== undefined && sameStrings(last.fingerprints, fingerprints) && sameStrings(last.secrets, secrets) && replay(last.calls, refs);
    if (!same) {
      this.stats.compared += 1;
      return false;
    }
    this.stats.reused += 1;
    // A spec is kept as this plan's, so the caller's previous manifests are not held on to (an equal digest is kept as it is).
    if (typeof last.desired !== 'string') last.desired = desiredOf(res);
    last.parts = parts;
    this.#next.set(res.address, last);
    return true;
  }

  /** An object compared in full came out unchanged: what it was computed from. */
  keep(
    address: Address,
    live: LiveObject,
    res: DesiredResource,
    fingerprints: Readonly<Record<string, string>>,
    secrets: Readonly<Record<string, string>>,
    parts: ReadonlyMap<string, string> | undefined,
    known: Readonly<Record<string, string>> | undefined,
    calls: readonly RefCall[],
  ): void {
    this.#next.set(address, {
      live,
      desired: desiredOf(res),
      fingerprints: sharedWhenEmpty(fingerprints),
      secrets: sharedWhenEmpty(secrets),
      parts,
      known,
      calls: this.#shared.of(calls),
    });
  }

  /** The plan is complete: only its objects are kept. */
  commit(): void {
    this.#kept = this.#next;
    this.#next = new Map();
    this.#shared = new SharedCalls();
  }

  /** Objects kept from the last plan. */
  get size(): number {
    return this.#kept.size;
  }
}

function desiredOf(res: DesiredResource): Unchanged['desired'] {
  return res.digest ?? { spec: res.spec, labels: res.labels };
}

/**
 * The same resource: by the digest of the document both were loaded from, else (both built in
 * code) by labels and spec. One with a digest and one without are taken as different.
 */
function sameDesired(last: Unchanged, res: DesiredResource): boolean {
  const was = last.desired;
  if (typeof was === 'string') return was === res.digest;
  return res.digest === undefined && sameStrings(was.labels, res.labels) && sameJson(was.spec as Json, res.spec as Json);
}

/** Same string values under the same keys. */
export function sameStrings(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  let count = 0;
  for (const k in a) {
    if (b[k] !== a[k]) return false;
    count += 1;
  }
  for (const _ in b) count -= 1;
  return count === 0;
}

function sameKnown(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameStrings(a, b);
}
