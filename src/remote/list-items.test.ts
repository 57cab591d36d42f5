import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listItemTexts } from './list-items.js';

/** What the client's envelope takes from a parsed body (selfhosted.ts / hosted.ts `unwrap`). */
const unwrap = (body: unknown, key: string) =>
  typeof body === 'object' && body !== null && key in body ? (body as Record<string, unknown>)[key] : body;

/** The scanner's promise: an answer other than null is exactly the list JSON.parse and the envelope give. */
function agreesWithJsonParse(text: string, key: string): void {
  const texts = listItemTexts(text, key);
  if (texts === null) return;
  let items: unknown[];
  try {
    items = texts.map((t) => JSON.parse(t) as unknown);
  } catch {
    return; // the caller parses every item it has not seen: an item that is not JSON fails there
  }
  const list = unwrap(JSON.parse(text), key);
  expect(Array.isArray(list)).toBe(true);
  expect(items).toEqual(list);
}

const spacing = fc.constantFrom(undefined, 0, 1, 2, '\t', ' \r\n ');

describe('listItemTexts', () => {
  it('gives each item of a list body as the server wrote it, bare or in an envelope', () => {
    expect(listItemTexts('[{"id":"a"}, {"id":"b","x":[1,{"y":"]"}]} ]', 'data')).toEqual(['{"id":"a"}', '{"id":"b","x":[1,{"y":"]"}]}']);
    expect(listItemTexts('{"meta":{"total":2},"data":[1,"two",null]}', 'data')).toEqual(['1', '"two"', 'null']);
    expect(listItemTexts('{"status":200,"requestId":"r","result":[]}', 'result')).toEqual([]);
    expect(listItemTexts(' {"data" : [ {"s":"a\\"b\\\\"} ] } ', 'data')).toEqual(['{"s":"a\\"b\\\\"}']);
  });

  it('answers null for bodies that are not a list, or not well-formed around the items', () => {
    for (const text of [
      '{"data":{"id":"a"}}',
      '{"other":[1]}',
      '"data"',
      '[1,]',
      '[1 2]',
      '[{"id":"a"}',
      '{"data":[1]} x',
      '{"data":[1],}',
      '{"meta":{bad},"data":[1]}',
      '{"data":[1],"data":{"x":1}}',
      '\ufeff[1]',
      '',
    ])
      expect(listItemTexts(text, 'data'), text).toBeNull();
  });

  it('agrees with JSON.parse on any list body, however it is spaced (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue()),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 })),
        fc.constantFrom('data', 'result'),
        spacing,
        (items, extra, key, space) => {
          const body = extra === null ? items : { ...extra, [key]: items };
          const text = JSON.stringify(body, null, space);
          const texts = listItemTexts(text, key);
          expect(texts).not.toBeNull();
          expect(texts?.map((t) => JSON.parse(t) as unknown)).toEqual(items.map((i) => JSON.parse(JSON.stringify(i)) as unknown));
        },
      ),
    );
  });

  it('never answers a list that JSON.parse would not give, for damaged bodies (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 4 }),
        fc.constantFrom('data', 'result'),
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', '[', '{', '"', '\\', ':', 'x', ' ', '0'),
        fc.boolean(),
        (items, key, at, insert, cut) => {
          const text = JSON.stringify({ meta: { total: items.length }, [key]: items });
          const i = at % (text.length + 1);
          agreesWithJsonParse(cut ? text.slice(0, i) + insert : text.slice(0, i) + insert + text.slice(i), key);
          agreesWithJsonParse(text.slice(0, i) + text.slice(i + 1), key);
        },
      ),
      { numRuns: 500 },
    );
  });
});
