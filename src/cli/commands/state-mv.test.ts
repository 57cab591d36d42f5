import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InventoryEntry } from '../../core/inventory.js';
import type { StateBackend } from '../../inventory/backend.js';
import { memoryInventory } from '../../inventory/memory-store.js';
import { pairTiles } from '../../kinds/dashboard/tiles.js';
import type { CliIO } from '../io.js';
import { moveState } from './state-mv.js';

/** Names every plain object answers through its prototype: as tile keys they are data like any other. */
const INHERITED = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  'isPrototypeOf',
  '__defineGetter__',
  'toLocaleString',
];
const aKey = fc.oneof(fc.constantFrom(...INHERITED), fc.stringMatching(/^[a-z0-9_-]{1,8}$/));

const io = (): CliIO => {
  const stderr = new PassThrough();
  return { stdout: new PassThrough(), stderr, stdin: new PassThrough(), terminal: stderr, env: {}, cwd: '/' };
};

function dashboard(tiles: Record<string, string>): InventoryEntry {
  return { kind: 'Dashboard', name: 'd', id: 'd1', status: 'owned', naturalKey: 'name:D', tiles, updatedAt: '2026-01-01T00:00:00.000Z' };
}

/** A map with exactly these own keys (a `__proto__` key among them stays a key). */
function tileMap(keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  keys.forEach((k, i) => Object.defineProperty(out, k, { value: `t${i}`, enumerable: true, writable: true, configurable: true }));
  return out;
}

describe('state mv of a tile key looks keys up among the map’s own keys only (issue 50)', () => {
  it('moves a recorded key, refuses one the map does not own, and never sees an inherited name as an occupied key (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(aKey, { maxLength: 5 }), aKey, aKey, async (keys, from, to) => {
        fc.pre(from !== to);
        const tiles = tileMap(keys);
        const store = memoryInventory('prod', [dashboard(tiles)]);
        const backend = { openInventory: () => Promise.resolve(store) } as unknown as StateBackend;
        const moved = moveState(io(), backend, 'prod', `Dashboard/d/tiles/${from}`, `Dashboard/d/tiles/${to}`);
        const after = () => Object.entries(store.get('Dashboard/d')?.tiles ?? {}).sort();
        if (!keys.includes(from)) {
          await expect(moved).rejects.toThrow(`Dashboard/d has no tile '${from}'`);
          expect(after()).toEqual(Object.entries(tiles).sort());
        } else if (keys.includes(to)) {
          await expect(moved).rejects.toThrow(`Dashboard/d already has a tile '${to}'`);
        } else {
          await moved;
          const id = Object.getOwnPropertyDescriptor(tiles, from)?.value as string;
          expect(after()).toEqual(
            Object.entries(tiles)
              .map(([k, v]) => [k === from ? to : k, v])
              .sort(),
          );
          expect(Object.getOwnPropertyDescriptor(store.get('Dashboard/d')?.tiles, to)?.value).toBe(id);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the red team move: tiles/constructor is no tile, and reports no success', async () => {
    const store = memoryInventory('prod', [dashboard({ p99: 't1' })]);
    const backend = { openInventory: () => Promise.resolve(store) } as unknown as StateBackend;
    await expect(moveState(io(), backend, 'prod', 'Dashboard/d/tiles/constructor', 'Dashboard/d/tiles/x')).rejects.toThrow(
      "Dashboard/d has no tile 'constructor' in the state of target 'prod' (recorded: p99)",
    );
    expect(store.get('Dashboard/d')?.tiles).toEqual({ p99: 't1' });
  });

  it('a tile whose key (or previous key) is an inherited name pairs by the recorded map as any other (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INHERITED), fc.constantFrom(...INHERITED), (key, previous) => {
        fc.pre(key !== previous);
        const tile = { key, previousKeys: [previous], name: 'renamed', x: 0, y: 0, w: 6, h: 4, config: {} };
        const live = [{ id: 't7', name: 'other name', x: 0, y: 0, w: 6, h: 4, config: {} }];
        expect(pairTiles([tile], live, tileMap([previous]))).toEqual(new Map());
        const recorded: Record<string, string> = {};
        Object.defineProperty(recorded, previous, { value: 't7', enumerable: true });
        expect(pairTiles([tile], live, recorded)).toEqual(new Map([[key, 't7']]));
      }),
    );
  });
});
