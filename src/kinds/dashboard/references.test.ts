/** A live tile config in comparable terms: its ids become tokens, every other key is kept as it was. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../core/freeze.js';
import type { Json } from '../../core/wire.js';
import type { TokenContext } from '../refs.js';
import { liveConfigToTokens } from './references.js';

type Obj = { [k: string]: Json };

const tokens: TokenContext = {
  token: (kind, id) => (kind === 'Source' ? `source:${id}` : { id, name: `connection ${id}` }),
  partToken: (_kind, parentId, partId) => `${parentId}/${partId}`,
};

/** What the copy stands for: everything but the two ids, then the tokens for them. */
function expected(config: Obj): Obj {
  const { sourceId, connectionId, ...rest } = config;
  const out: Obj = { ...rest };
  if (typeof sourceId === 'string') out.source = `source:${sourceId}`;
  if (typeof connectionId === 'string') out.connection = { id: connectionId, name: `connection ${connectionId}` };
  return out;
}

const key = fc.oneof(fc.constantFrom('sourceId', 'connectionId', 'source', 'select', 'where', 'displayType', '__proto__'), fc.string());
const config = fc.dictionary(key, fc.jsonValue() as fc.Arbitrary<Json>, { maxKeys: 20 });

describe('liveConfigToTokens', () => {
  it('keeps every other key and its value, in order, and turns the ids into tokens (frozen live objects too)', () => {
    fc.assert(
      fc.property(config, fc.boolean(), (raw, freeze) => {
        const live = freeze ? deepFreeze(structuredClone(raw)) : raw;
        const got = liveConfigToTokens(live, tokens);
        expect(got).toStrictEqual(expected(raw));
        expect(Object.keys(got)).toEqual(Object.keys(expected(raw)));
      }),
      { numRuns: 500 },
    );
  });

  it('a source id that is not a string is dropped, like a missing one', () => {
    expect(liveConfigToTokens({ sourceId: null, select: [] }, tokens)).toStrictEqual({ select: [] });
  });
});
