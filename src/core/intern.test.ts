import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringTable } from './intern.js';

/** The distinct strings among a JSON value's values (not its property names). */
function distinctStrings(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const v of value) distinctStrings(v, into);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) distinctStrings(v, into);
  return into;
}

describe('a string table', () => {
  it('leaves any JSON value equal to what it was, in place, and holds one entry per distinct string', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        const value = structuredClone(json);
        const table = new StringTable();
        const out = table.internAll(value);
        expect(out).toStrictEqual(json);
        if (typeof value === 'object' && value !== null) expect(out).toBe(value);
        expect(table.size).toBe(distinctStrings(json).size);
      }),
    );
  });

  it('shares strings across the values it is given, and keeps property names out of it', () => {
    const table = new StringTable();
    table.internAll({ kind: 'Dashboard', tiles: [{ key: 'lat', source: 'Traces' }] });
    table.internAll({ kind: 'Dashboard', tiles: [{ key: 'lat', source: 'Logs' }] });
    expect(table.size).toBe(4);
    expect(table.of('Logs')).toBe('Logs');
    expect(table.size).toBe(4);
  });

  it('holds at most its capacity: a full table starts over, and values stay what they were', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3 }), { maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (strings, capacity) => {
        const table = new StringTable(capacity);
        const value = structuredClone(strings);
        expect(table.internAll(value)).toStrictEqual(strings);
        expect(table.size).toBeLessThanOrEqual(capacity);
      }),
    );
    const table = new StringTable(2);
    const shared = ['team', 'team'].map((s) => `${s}-${'x'.repeat(3)}`);
    const [a, b] = table.internAll(shared);
    expect(a).toBe(b);
    table.of('one');
    expect(table.size).toBe(2);
    // Full: the next new string starts a new round.
    table.of('two');
    expect(table.size).toBe(1);
  });
});
