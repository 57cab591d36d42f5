import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listItemSpans, topLevelMember, utf8Text } from './list-items.js';

/** The text of each item the scanner finds in the body's UTF-8 bytes. */
function listItemTexts(text: string, key: string): string[] | null {
  const bytes = Buffer.from(text);
  return listItemSpans(bytes, key)?.map(({ from, to }) => utf8Text(bytes, from, to)) ?? null;
}

/** What the client's envelope takes from a parsed body (selfhosted.ts / hosted.ts `unwrap`). */
const unwrap = (body: unknown, key: string) =>
  typeof body === 'object' && body !== null && key in body ? (body as Record<string, unknown>)[key] : body;

/**
 * The scanner's promise: an answer other than null is exactly the list JSON.parse and the envelope
 * give from the decoded body (a body is bytes: a cut that splits a character decodes to U+FFFD on
 * both sides).
 */
function agreesWithJsonParse(damaged: string, key: string): void {
  const text = utf8Text(Buffer.from(damaged));
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

describe('listItemSpans', () => {
  it('gives each item of a list body as the server wrote it, bare or in an envelope', () => {
    expect(listItemTexts('[{"id":"a"}, {"id":"b","x":[1,{"y":"]"}]} ]', 'data')).toEqual(['{"id":"a"}', '{"id":"b","x":[1,{"y":"]"}]}']);
    expect(listItemTexts('{"meta":{"total":2},"data":[1,"two",null]}', 'data')).toEqual(['1', '"two"', 'null']);
    expect(listItemTexts('{"status":200,"requestId":"r","result":[]}', 'result')).toEqual([]);
    expect(listItemTexts(' {"data" : [ {"s":"a\\"b\\\\"} ] } ', 'data')).toEqual(['{"s":"a\\"b\\\\"}']);
  });

  it('finds items by their bytes whatever characters they hold (multi-byte UTF-8 never looks like a quote or a bracket)', () => {
    expect(listItemTexts('{"data":[{"n":"Über ]\\"} 😀"},"日本",{"e":"é"}]}', 'data')).toEqual([
      '{"n":"Über ]\\"} 😀"}',
      '"日本"',
      '{"e":"é"}',
    ]);
    const bytes = Buffer.from('[{"n":"né"},{"n":"x"}]');
    expect(listItemSpans(bytes, 'data')).toEqual([
      { from: 1, to: 12 },
      { from: 13, to: 22 },
    ]);
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
        fc.array(fc.jsonValue({ stringUnit: 'binary' })),
        fc.option(fc.dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue(), { maxKeys: 3 })),
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
        fc.array(fc.jsonValue({ stringUnit: 'grapheme' }), { maxLength: 4 }),
        fc.constantFrom('data', 'result'),
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', '[', '{', '"', '\\', ':', 'x', ' ', '0', 'é', '😀'),
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

describe('topLevelMember', () => {
  it('reads one member of an object body from its bytes, the last of that name, other members only skipped', () => {
    const of = (text: string) => topLevelMember(Buffer.from(text), 'requestId');
    expect(of('{"status":200,"requestId":"r-é","result":[{"requestId":"inner"}]}')).toBe('r-é');
    expect(of('{"requestId":"a","requestId":"b"}')).toBe('b');
    expect(of('[{"requestId":"a"}]')).toBeUndefined();
    expect(of('{"requestId":"a",}')).toBeUndefined();
    expect(of('{"result":[]}')).toBeUndefined();
  });
});
