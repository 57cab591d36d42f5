import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { json, jsonObject } from './wire.js';

const zodJson = z.json();
const zodJsonObject = z.record(z.string(), zodJson);

/** Values a parsed body never holds, beside every JSON value: what z.json() refuses must stay refused. */
const anything = fc.oneof(
  fc.jsonValue(),
  fc.anything({
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withDate: true,
    withTypedArray: true,
    withSparseArray: true,
    withNullPrototype: true,
  }),
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    undefined,
    () => 1,
    new Date(0),
    [1, undefined],
    { a: Number.NaN },
    { a: [new Map()] },
  ),
);

describe('the JSON schemas of the wire', () => {
  it('accept what z.json() accepts and refuse what it refuses', () => {
    fc.assert(
      fc.property(anything, (value) => {
        expect(json.safeParse(value).success).toBe(zodJson.safeParse(value).success);
        expect(jsonObject.safeParse(value).success).toBe(zodJsonObject.safeParse(value).success);
      }),
      { numRuns: 500 },
    );
  });

  it('keep the value they are given, not a copy', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        expect(jsonObject.parse(value)).toBe(value);
        expect(json.parse(value)).toBe(value);
      }),
    );
  });

  it('refuse a value nested deeper than any API object, without exhausting the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(json.safeParse(deep).success).toBe(false);
    expect(jsonObject.safeParse({ config: deep }).success).toBe(false);
  });
});
