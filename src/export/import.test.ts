import { describe, expect, it } from 'vitest';
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import { dashboard } from '../kinds/dashboard/definition.js';
import type { AnyKind } from '../kinds/registry.js';
import { importEntry, type ImportRequest } from './import.js';

const live: Record<string, LiveObject[]> = {
  Dashboard: [{ id: 'd1', name: 'Checkout', tiles: [], tags: [], filters: [], savedFilterValues: [] }] as unknown as LiveObject[],
  Alert: [{ id: 'a1' }],
};
const owned = (name: string, id: string): InventoryEntry => ({
  kind: 'Dashboard',
  name,
  id,
  status: 'owned',
  naturalKey: 'name:x',
  updatedAt: '2026-01-01T00:00:00Z',
});
const req = (extra: Partial<ImportRequest> = {}): ImportRequest => ({
  def: dashboard,
  name: 'checkout',
  id: 'd1',
  objects: (k: AnyKind) => live[k],
  served: ['Dashboard', 'Alert'],
  entries: [],
  declared: true,
  now: new Date('2026-11-23T00:00:00Z'),
  ...extra,
});

describe('obsync import', () => {
  it('owns the object under the address, by its id and natural key', () => {
    expect(importEntry(req())).toEqual({
      already: false,
      entry: {
        kind: 'Dashboard',
        name: 'checkout',
        id: 'd1',
        status: 'owned',
        naturalKey: 'name:Checkout',
        updatedAt: '2026-11-23T00:00:00.000Z',
      },
    });
    expect(importEntry(req({ entries: [owned('checkout', 'd1')] })).already).toBe(true);
  });

  it('refuses an unknown id, an id of another kind, a taken address or id, and an address no manifest declares', () => {
    expect(() => importEntry(req({ id: 'nope' }))).toThrow('no dashboard with id nope on the target');
    expect(() => importEntry(req({ id: 'a1' }))).toThrow(
      'a1 is an alert (Alert), not a dashboard: it cannot be imported as Dashboard/checkout',
    );
    expect(() => importEntry(req({ entries: [owned('checkout', 'd9')] }))).toThrow(
      'Dashboard/checkout is already owned with id d9, not d1',
    );
    expect(() => importEntry(req({ entries: [owned('other', 'd1')] }))).toThrow('dashboard d1 is already owned as Dashboard/other');
    expect(() => importEntry(req({ entries: [owned('other', 'd1')] }))).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('`obsync state mv Dashboard/other Dashboard/checkout`') as unknown }),
    );
    expect(() => importEntry(req({ declared: false }))).toThrow('no manifest declares Dashboard/checkout');
  });
});
