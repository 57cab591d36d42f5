import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignTargets, disagreements, type ReplicaTargets } from './assignment.js';

const targetsOf = (n: number) => Array.from({ length: n }, (_, i) => `t-${i}`);
const everyone = (ids: readonly string[], targets: readonly string[]): ReplicaTargets[] => ids.map((id) => ({ id, targets }));
const moved = (a: Map<string, string>, b: Map<string, string>, except?: string) =>
  [...a].filter(([t, o]) => o !== except && b.get(t) !== o).length;

/** Distinct replica ids (host/pid-like) and a target count. */
const estate = fc.record({
  ids: fc.uniqueArray(fc.stringMatching(/^[a-z0-9-]{1,12}\/[0-9]{1,6}$/), { minLength: 1, maxLength: 8 }),
  count: fc.integer({ min: 0, max: 120 }),
});

describe('assignTargets', () => {
  it('gives 30 targets over three replicas 10 each, and over two 15 each', () => {
    const targets = targetsOf(30);
    expect([...assignTargets(everyone(['a', 'b', 'c'], targets)).load.values()]).toEqual([10, 10, 10]);
    expect([...assignTargets(everyone(['a', 'b'], targets)).load.values()]).toEqual([15, 15]);
  });

  it('leads every target with exactly one replica that knows it, each replica ⌊T÷R⌋ or ⌈T÷R⌉ (under the cap)', () => {
    fc.assert(
      fc.property(estate, ({ ids, count }) => {
        const targets = targetsOf(count);
        const { owner, load, cap } = assignTargets(everyone(ids, targets));
        expect([...owner.keys()].sort()).toEqual([...targets].sort());
        const lo = Math.floor(count / ids.length);
        const hi = Math.ceil(count / ids.length);
        for (const id of ids) {
          const n = load.get(id) ?? -1;
          expect(n).toBeGreaterThanOrEqual(lo);
          expect(n).toBeLessThanOrEqual(hi);
          expect(n).toBeLessThanOrEqual(cap);
          expect([...owner.values()].filter((o) => o === id)).toHaveLength(n);
        }
      }),
    );
  });

  it('is deterministic: the same whatever the order replicas and targets are listed in', () => {
    fc.assert(
      fc.property(estate, fc.integer(), ({ ids, count }, seed) => {
        const targets = targetsOf(count);
        const a = assignTargets(everyone(ids, targets));
        const shuffle = <T>(xs: readonly T[]) =>
          [...xs]
            .map((x, i) => ({ x, k: (i * 7919 + seed) % 104729 }))
            .sort((p, q) => p.k - q.k)
            .map((p) => p.x);
        const b = assignTargets(shuffle(ids).map((id) => ({ id, targets: shuffle(targets) })));
        expect([...b.owner].sort()).toEqual([...a.owner].sort());
      }),
    );
  });

  it('moves few targets when a replica joins: at most about twice the newcomer’s share', () => {
    fc.assert(
      fc.property(estate, fc.stringMatching(/^new-[a-z0-9]{1,6}$/), ({ ids, count }, newcomer) => {
        const targets = targetsOf(count);
        const before = assignTargets(everyone(ids, targets)).owner;
        const after = assignTargets(everyone([...ids, newcomer], targets)).owner;
        const share = Math.ceil(count / (ids.length + 1));
        expect(moved(before, after)).toBeLessThanOrEqual(2 * share + ids.length);
      }),
    );
  });

  it('when a replica leaves, the survivors keep most of their targets: at most about twice a share moves besides its own', () => {
    fc.assert(
      fc.property(
        estate.filter((e) => e.ids.length >= 2),
        ({ ids, count }) => {
          const targets = targetsOf(count);
          const [gone, ...rest] = ids;
          const before = assignTargets(everyone(ids, targets)).owner;
          const after = assignTargets(everyone(rest, targets)).owner;
          // Only the dead replica's targets must move; the bounds push a few more along (a cascade
          // of full replicas, which matters most when each holds few targets).
          expect(moved(before, after, gone)).toBeLessThanOrEqual(2 * Math.ceil(count / rest.length) + rest.length);
          for (const [t, o] of after) {
            expect(o).not.toBe(gone);
            expect(targets).toContain(t);
          }
        },
      ),
    );
  });

  it('a target only one replica knows is led by it, even past its share; none is led by a replica that does not know it', () => {
    const shared = targetsOf(6);
    const { owner } = assignTargets([
      { id: 'a', targets: [...shared, 'only-a-1', 'only-a-2', 'only-a-3'] },
      { id: 'b', targets: shared },
    ]);
    for (const t of ['only-a-1', 'only-a-2', 'only-a-3']) expect(owner.get(t)).toBe('a');
    expect(owner.size).toBe(9);
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd'), targets: fc.subarray(targetsOf(20)) }), {
          minLength: 1,
          maxLength: 4,
        }),
        (replicas) => {
          const { owner } = assignTargets(replicas);
          for (const [t, o] of owner) expect(replicas.some((r) => r.id === o && r.targets.includes(t))).toBe(true);
          const all = new Set(replicas.flatMap((r) => r.targets));
          expect(owner.size).toBe(all.size);
        },
      ),
    );
  });

  it('no replicas: nobody leads', () => {
    expect(assignTargets([]).owner.size).toBe(0);
  });
});

describe('disagreements', () => {
  const base = { version: '1.0.0', leaseMs: 30_000 };
  it('names the targets, versions and lease settings that differ, and nothing when the replicas agree', () => {
    const me = { id: 'a', targets: ['x', 'y'], ...base };
    expect(disagreements(me, [me, { id: 'b', targets: ['y', 'x'], ...base }])).toEqual([]);
    expect(disagreements(me, [me, { id: 'b', targets: ['y', 'z'], version: '1.1.0', leaseMs: 10_000 }])).toEqual([
      'replica b does not run target(s) x that replica a runs',
      'replica b has state.leaseSeconds 10, replica a has 30',
      'replica b runs obsync 1.1.0, replica a runs 1.0.0',
      'replica b runs target(s) z that replica a does not',
    ]);
  });
});
