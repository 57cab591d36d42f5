import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryInventory } from '../inventory/memory-store.js';
import { entryAddress, keptEntry, soleOwners, type InventoryEntry } from './inventory.js';

const entry = (): InventoryEntry => ({
  kind: 'Dashboard',
  name: 'checkout',
  id: 'd1',
  status: 'owned',
  naturalKey: 'name:Checkout',
  labels: { team: 'payments' },
  tiles: { p99: 't1' },
  preexisting: ['d0'],
  nonConvergent: [{ path: 'spec.tiles[0].config', desired: { a: [1, { b: 'c' }] } }],
  updatedAt: '2026-11-26T00:00:00.000Z',
});

describe('the entry a store keeps', () => {
  it('is a frozen copy, equal to the entry and out of reach of changes the caller makes to its own afterwards', () => {
    const mine = entry();
    const kept = keptEntry(mine);
    expect(kept).toStrictEqual(entry());
    expect(Object.isFrozen(kept) && Object.isFrozen(kept.labels) && Object.isFrozen(kept.nonConvergent?.[0]?.desired)).toBe(true);
    mine.labels = { team: 'other' };
    (mine.tiles as Record<string, string>).p99 = 't2';
    mine.preexisting?.push('d9');
    (mine.nonConvergent?.[0]?.desired as { a: unknown[] }).a.push(2);
    expect(kept).toStrictEqual(entry());
  });

  it('is what a store hands back, whatever the caller does with the entry it put', async () => {
    const store = memoryInventory('t');
    const mine = entry();
    await store.put(mine);
    (mine.tiles as Record<string, string>).p99 = 't2';
    mine.status = 'pending';
    expect(store.get('Dashboard/checkout')).toStrictEqual(entry());
  });
});

describe('one object, one owner (issue 53)', () => {
  const kinds = ['Dashboard', 'Alert'] as const;
  const owned = (kind: (typeof kinds)[number], name: string, id: string | null): InventoryEntry => ({
    kind,
    name,
    id,
    status: id === null ? 'pending' : 'owned',
    naturalKey: `name:${name}`,
    updatedAt: '2026-01-01T00:00:00.000Z',
  });
  const anEntry = fc
    .tuple(fc.constantFrom(...kinds), fc.constantFrom('a', 'b', 'c', 'd'), fc.option(fc.constantFrom('1', '2', '3'), { nil: null }))
    .map(([kind, name, id]) => owned(kind, name, id));

  it(
    'a store never records a second owner of an object: such a write is refused, naming the owner, and changes nothing ' + '(property)',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              anEntry.map((e) => ({ op: 'put' as const, e })),
              anEntry.map((e) => ({ op: 'remove' as const, e })),
            ),
            { maxLength: 30 },
          ),
          async (ops) => {
            const store = memoryInventory('t');
            for (const { op, e } of ops) {
              const address = entryAddress(e);
              if (op === 'remove') {
                await store.remove(address);
                continue;
              }
              const owner = store.entries().find((x) => x.id !== null && x.kind === e.kind && x.id === e.id && entryAddress(x) !== address);
              const before = store.entries();
              if (owner) {
                await expect(store.put(e)).rejects.toMatchObject({
                  code: 'STATE_OWNER',
                  message: expect.stringContaining(`${entryAddress(owner)} owns that object already`) as unknown,
                });
                expect(store.entries()).toEqual(before);
              } else await store.put(e);
              const ids = store.entries().flatMap((x) => (x.id === null ? [] : [`${x.kind}/${x.id}`]));
              expect(new Set(ids).size).toBe(ids.length);
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('of entries read, both owners of an object owned twice are left out and named; the rest kept (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anEntry, { selector: (e) => entryAddress(e), maxLength: 8 }), (entries) => {
        const { kept, skipped } = soleOwners(entries, 'table entries');
        const count = (e: InventoryEntry) => entries.filter((x) => x.id !== null && x.kind === e.kind && x.id === e.id).length;
        expect(kept).toEqual(entries.filter((e) => e.id === null || count(e) === 1));
        expect(skipped.map((r) => r.key).sort()).toEqual(
          entries
            .filter((e) => e.id !== null && count(e) > 1)
            .map(entryAddress)
            .sort(),
        );
        for (const r of skipped) expect(r.reason).toMatch(/^it owns (Dashboard|Alert) \d, which .+ owns?: one object has one owner$/);
      }),
      { numRuns: 500 },
    );
  });
});
