/** Hostile data in a live tile: a `__proto__` key the service answers stays a key of the canonical form, never its prototype. */
import { describe, expect, it } from 'vitest';
import type { Json } from '../../core/wire.js';
import { canonicalTileConfig } from './canonical.js';

describe('canonicalTileConfig', () => {
  it('keeps a __proto__ key as an own key: nothing is inherited, nothing hidden from the comparison', () => {
    const live = JSON.parse('{"displayType":"line","select":[],"__proto__":{"where":"injected"}}') as { [k: string]: Json };
    const out = canonicalTileConfig(live);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toContain('__proto__');
    expect(out.where).toBeUndefined();
    const inherited: string[] = [];
    for (const key in out) if (!Object.hasOwn(out, key)) inherited.push(key);
    expect(inherited).toEqual([]);
  });
});
