import { describe, expect, it } from 'vitest';
import { IdMap, LazyIdMap } from './id-map.js';

const seed = (ids: IdMap) => {
  ids.set('Dashboard/a', 'Dashboard', 'd1', new Map([['p99', 't1']]));
  ids.set('Alert/x', 'Alert', 'a1');
};

describe('a lazily seeded id map', () => {
  it('is never seeded when nothing asks it anything', () => {
    let seeded = 0;
    new LazyIdMap(() => (seeded += 1));
    expect(seeded).toBe(0);
  });

  it('answers as a map seeded at once, whatever is asked or set first, and seeds once', () => {
    const calls: ((ids: IdMap) => unknown)[] = [
      (ids) => ids.id('Dashboard/a'),
      (ids) => ids.addressOf('Alert', 'a1'),
      (ids) => ids.partId('Dashboard/a', 'p99'),
      (ids) => ids.partKey('Dashboard/a', 't1'),
      (ids) => ids.parts('Dashboard/a')?.size,
      // A create landing over a seeded object's address: the seed comes first, the new id wins.
      (ids) => ids.set('Dashboard/a', 'Dashboard', 'd2'),
      (ids) => ids.addressOf('Dashboard', 'd1'),
      (ids) => ids.id('Dashboard/a'),
    ];
    for (let first = 0; first < calls.length; first++) {
      let seeded = 0;
      const eager = new IdMap();
      seed(eager);
      const lazy = new LazyIdMap((ids) => {
        seeded += 1;
        seed(ids);
      });
      const order = [calls[first], ...calls.filter((_, i) => i !== first)];
      for (const call of order) expect(call?.(lazy)).toEqual(call?.(eager));
      expect(seeded).toBe(1);
    }
  });
});
