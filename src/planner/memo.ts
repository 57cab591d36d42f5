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
import type { NameOrId, RefContext, RefToken, RefUse, TokenContext } from '../kinds/refs.js';

/** One question a kind asked the references while making a form, with the answer it got. */
type RefCall =
  | { ask: 'ref'; kind: AnyKind; ref: NameOrId; answer: RefUse }
  | { ask: 'part'; kind: AnyKind; ref: NameOrId; part: NameOrId; answer: RefUse }
  | { ask: 'wire'; kind: AnyKind; ref: NameOrId; part: NameOrId | undefined; answer: Json | null }
  | { ask: 'token'; kind: AnyKind; id: string; answer: RefToken }
  | { ask: 'partToken'; kind: AnyKind; id: string; partId: string; answer: RefToken };

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

/**
 * The references as a kind sees them, recording every question and answer for the memo. A
 * question asked again while one object's forms are made gets the same answer (nothing the
 * answers depend on changes meanwhile): it is recorded once.
 */
export class RecordingRefs implements RefContext, TokenContext {
  readonly calls: RefCall[] = [];

  constructor(private readonly refs: RefContext & TokenContext) {}

  ref(kind: AnyKind, ref: NameOrId): RefUse {
    const answer = this.refs.ref(kind, ref);
    if (!this.calls.some((c) => c.ask === 'ref' && c.kind === kind && sameRef(c.ref, ref)))
      this.calls.push({ ask: 'ref', kind, ref, answer });
    return answer;
  }

  part(kind: AnyKind, ref: NameOrId, part: NameOrId): RefUse {
    const answer = this.refs.part(kind, ref, part);
    if (!this.calls.some((c) => c.ask === 'part' && c.kind === kind && sameRef(c.ref, ref) && sameRef(c.part, part)))
      this.calls.push({ ask: 'part', kind, ref, part, answer });
    return answer;
  }

  wire(kind: AnyKind, ref: NameOrId, part?: NameOrId): Json | null {
    const answer = this.refs.wire(kind, ref, part);
    if (!this.calls.some((c) => c.ask === 'wire' && c.kind === kind && sameRef(c.ref, ref) && sameRef(c.part, part)))
      this.calls.push({ ask: 'wire', kind, ref, part, answer });
    return answer;
  }

  token(kind: AnyKind, id: string): RefToken {
    const answer = this.refs.token(kind, id);
    if (!this.calls.some((c) => c.ask === 'token' && c.kind === kind && c.id === id)) this.calls.push({ ask: 'token', kind, id, answer });
    return answer;
  }

  partToken(kind: AnyKind, id: string, partId: string): RefToken {
    const answer = this.refs.partToken(kind, id, partId);
    if (!this.calls.some((c) => c.ask === 'partToken' && c.kind === kind && c.id === id && c.partId === partId))
      this.calls.push({ ask: 'partToken', kind, id, partId, answer });
    return answer;
  }
}

/**
 * One copy of each distinct question-and-answer, and of each distinct list of them, per plan: the
 * objects of a large estate ask the same few questions (every dashboard of the same sources, every
 * alert of the same webhook), and a copy per object is most of what the memo holds. Kept calls are
 * never changed, so sharing them is safe; calls equal as `replay` compares them are one. Dropped
 * when the plan is complete.
 *
 * Found by the most specific string a call already holds (the id or name it asks about), then
 * compared in full: no key is built per call (a JSON key per call was 11.5 MB of a first plan at
 * 20,000 objects). A bucket that grows past BUCKET_LIMIT shares no more calls: sharing only saves
 * memory, and a long bucket would make each look-up slow.
 */
class SharedCalls {
  /** Each bucket a chain of entries (most hold one or two: an array each would be most of the memory). */
  readonly #buckets = new Map<string, Shared>();
  readonly #lists = new Map<string, readonly RefCall[]>();
  #count = 0;

  of(calls: readonly RefCall[]): readonly RefCall[] {
    const seenBefore = this.#count;
    const shared = calls.map((c) => this.#one(c));
    // A list with a call never seen before cannot equal a kept list: kept only once its calls are
    // all shared (the second object that asks the same), so an object whose questions are its own
    // (an alert about its own dashboard) costs no key and no entry.
    if (shared.some((one) => one.n >= seenBefore)) return shared.map((one) => one.call);
    const listKey = shared.map((one) => one.n).join(',');
    let list = this.#lists.get(listKey);
    if (!list) this.#lists.set(listKey, (list = shared.map((one) => one.call)));
    return list;
  }

  #one(call: RefCall): Shared {
    const key = bucketKey(call);
    const head = this.#buckets.get(key);
    let length = 0;
    for (let one = head; one !== undefined; one = one.next, length++) if (sameCall(one.call, call)) return one;
    const one: Shared = { call, n: this.#count++, next: head };
    if (length < BUCKET_LIMIT) this.#buckets.set(key, one);
    return one;
  }
}

interface Shared {
  readonly call: RefCall;
  readonly n: number;
  readonly next: Shared | undefined;
}

const BUCKET_LIMIT = 64;

function bucketKey(c: RefCall): string {
  switch (c.ask) {
    case 'token':
      return c.id;
    case 'partToken':
      return c.partId;
    case 'ref':
      return refText(c.ref);
    default:
      return refText(c.part ?? c.ref);
  }
}

function refText(ref: NameOrId): string {
  return typeof ref === 'string' ? ref : ref.id;
}

/** The same question with the same answer, as `replay` compares answers. */
function sameCall(a: RefCall, b: RefCall): boolean {
  if (a.ask !== b.ask || a.kind !== b.kind) return false;
  switch (a.ask) {
    case 'ref':
      return b.ask === 'ref' && sameRef(a.ref, b.ref) && sameUse(a.answer, b.answer);
    case 'part':
      return b.ask === 'part' && sameRef(a.ref, b.ref) && sameRef(a.part, b.part) && sameUse(a.answer, b.answer);
    case 'wire':
      return b.ask === 'wire' && sameRef(a.ref, b.ref) && sameRef(a.part, b.part) && sameJson(a.answer, b.answer);
    case 'token':
      return b.ask === 'token' && a.id === b.id && sameToken(a.answer, b.answer);
    case 'partToken':
      return b.ask === 'partToken' && a.id === b.id && a.partId === b.partId && sameToken(a.answer, b.answer);
  }
}

function replay(calls: readonly RefCall[], refs: RefContext & TokenContext): boolean {
  for (const c of calls) {
    const same =
      c.ask === 'ref'
        ? sameUse(refs.ref(c.kind, c.ref), c.answer)
        : c.ask === 'part'
          ? sameUse(refs.part(c.kind, c.ref, c.part), c.answer)
          : c.ask === 'wire'
            ? sameJson(refs.wire(c.kind, c.ref, c.part), c.answer)
            : c.ask === 'token'
              ? sameToken(refs.token(c.kind, c.id), c.answer)
              : sameToken(refs.partToken(c.kind, c.id, c.partId), c.answer);
    if (!same) return false;
  }
  return true;
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

function sameRef(a: NameOrId | undefined, b: NameOrId | undefined): boolean {
  return typeof a === 'object' && typeof b === 'object' ? a.id === b.id : a === b;
}

function sameUse(a: RefUse, b: RefUse): boolean {
  if (a.ok && b.ok) return a.id === b.id && sameToken(a.token, b.token);
  return !a.ok && !b.ok && a.error === b.error;
}

function sameToken(a: RefToken, b: RefToken): boolean {
  return typeof a === 'string' || typeof b === 'string' ? a === b : a.id === b.id && a.name === b.name;
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
