import type { NameOrId } from '../kinds/refs.js';
import { type RefCall, sameCall } from './ref-calls.js';

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
export class SharedCalls {
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
