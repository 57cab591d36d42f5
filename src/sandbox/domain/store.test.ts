import { describe, expect, it } from 'vitest';
import type { JsonRecord } from './contract.js';
import { emptyState, Store } from './store.js';

const now = () => new Date('2026-01-01T00:00:00Z');

describe('Store', () => {
  it('keeps committed rows apart from the caller’s objects', () => {
    const store = new Store(emptyState('team', { id: 'u' }), now);
    const row: JsonRecord = { id: 'a', name: 'A', tiles: [{ id: 't' }] };
    store.commit({ dashboards: [row] });
    row.name = 'changed';
    (row.tiles as JsonRecord[]).push({ id: 'u' });
    expect(store.state.dashboards).toEqual([{ id: 'a', name: 'A', tiles: [{ id: 't' }] }]);
    expect(() => ((store.state.dashboards[0] as JsonRecord).name = 'x')).toThrow(TypeError);
  });

  it('reuses rows already in the state and copies only the new ones', () => {
    const store = new Store(emptyState('team', { id: 'u' }), now);
    store.commit({ dashboards: [{ id: 'a' }] });
    const first = store.state.dashboards[0];
    store.commit({ dashboards: [...store.state.dashboards, { id: 'b' }] });
    expect(store.state.dashboards[0]).toBe(first);
    expect(store.state.dashboards.map((d) => d.id)).toEqual(['a', 'b']);
    expect(store.version).toBe(2);
  });

  it('snapshots a copy that later commits do not change', () => {
    const store = new Store(emptyState('team', { id: 'u' }), now);
    store.commit({ alerts: [{ id: 'a' }] });
    const snap = store.snapshot();
    store.commit({ alerts: [] });
    expect((snap.state as { alerts: unknown[] }).alerts).toEqual([{ id: 'a' }]);
  });
});
