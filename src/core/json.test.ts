import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyJson } from './json.js';

/** Every object and array of a value. */
function containers(value: unknown, into: object[] = []): object[] {
  if (typeof value === 'object' && value !== null) {
    into.push(value);
    for (const inner of Object.values(value)) containers(inner, into);
  }
  return into;
}

describe('copyJson', () => {
  it('copies any JSON value equal to it, sharing none of its objects or arrays', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        const copy = copyJson(json);
        expect(copy).toStrictEqual(json);
        const originals = new Set(containers(json));
        for (const inner of containers(copy)) expect(originals.has(inner)).toBe(false);
      }),
    );
  });

  it('keeps a __proto__ key of parsed data as a key, never as the prototype', () => {
    const parsed = JSON.parse('{"labels":{"__proto__":{"polluted":"yes"},"team":"a"}}') as { labels: Record<string, unknown> };
    const copy = copyJson(parsed);
    expect(Object.getPrototypeOf(copy.labels)).toBe(Object.prototype);
    expect(Object.keys(copy.labels)).toEqual(['__proto__', 'team']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
