import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignOwn, copyJson, sameJson, setOwn } from './json.js';
import type { Json } from './wire.js';

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

describe('sameJson', () => {
  it('sees an own __proto__ key as a key: an object with one equals no object without one', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), fc.jsonValue(), (base, other, value) => {
        fc.pre(other !== '__proto__' && !Object.hasOwn(base, other) && !Object.hasOwn(base, '__proto__'));
        const withProto = copyJson(base) as { [key: string]: Json };
        setOwn(withProto, '__proto__', {});
        const withOther = copyJson(base) as { [key: string]: Json };
        setOwn(withOther, other, value);
        expect(sameJson(withProto, withOther)).toBe(false);
        expect(sameJson(withOther, withProto)).toBe(false);
        expect(sameJson(withProto, base as Json)).toBe(false);
        expect(sameJson(withProto, copyJson(withProto))).toBe(true);
      }),
    );
  });
});

describe('assignOwn', () => {
  it('copies a __proto__ key of parsed data as a key, in order, never as the prototype', () => {
    const source = JSON.parse('{"a":1,"__proto__":{"polluted":"yes"},"b":2}') as Record<string, unknown>;
    const target: Record<string, unknown> = { first: 0 };
    const out = assignOwn(target, source);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['first', 'a', '__proto__', 'b']);
    expect(out.polluted).toBeUndefined();
  });
});
