/** A kind's live objects by id and by natural key: every object a key names, in live order. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiveIndex } from './live-index.js';

interface Obj {
  id: string;
  keys: string[];
}

describe('LiveIndex', () => {
  it('answers for every key exactly the objects that have it, in live order, and every object by its id', () => {
    const objects = fc.uniqueArray(fc.record({ id: fc.string(), keys: fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 3 }) }), {
      selector: (o) => o.id,
      maxLength: 30,
    });
    fc.assert(
      fc.property(objects, (list: Obj[]) => {
        const index = new LiveIndex(list, (o) => (o.keys.length === 1 ? (o.keys[0] as string) : o.keys));
        for (const key of ['a', 'b', 'c', 'd', 'e']) {
          const want = list.flatMap((o) => o.keys.filter((k) => k === key).map(() => o));
          expect(index.withKey(key)).toEqual(want);
          for (const [i, o] of index.withKey(key).entries()) expect(o).toBe(want[i]);
        }
        for (const o of list) expect(index.get(o.id)).toBe(o);
      }),
    );
  });
});
