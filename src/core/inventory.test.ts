import { describe, expect, it } from 'vitest';
import { memoryInventory } from '../inventory/memory-store.js';
import { keptEntry, type InventoryEntry } from './inventory.js';

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
