/**
 * A list body's items, parsed with the item schema: whole, or item by item from the raw bytes
 * through the item memo (a daemon's), where only the items whose bytes changed are parsed again.
 */
import { hash } from 'node:crypto';
import type * as z from 'zod';
import { deepFreeze } from '../core/freeze.js';
import { StringTable } from '../core/intern.js';
import type { ItemMemo } from '../core/item-memo.js';
import type { Envelope } from './envelope.js';
import { invalidBodyError } from './api-errors.js';
import { listItemSpans, utf8Text, type Span } from './list-items.js';
import type { RequestInit, Response } from './transport-types.js';

/** The answer a list was read from, and how its variant wraps and names things. */
export interface ListBody {
  init: RequestInit;
  res: Response;
  envelope: Envelope;
  host: string | undefined;
}

/**
 * A list body's items. With a memo, each item is found in the raw bytes, and decoded and parsed
 * only when the memo has not seen its bytes (see core/item-memo.ts), the hash of each item's
 * bytes going into `hashes`; without one, the body is parsed whole.
 */
export function parseList<T>(body: ListBody, item: z.ZodType<T>, memo?: ItemMemo, hashes?: string[]): T[] {
  const { res, envelope } = body;
  const spans = memo ? listItemSpans(res.bytes, envelope.listKey) : null;
  const items = memo && spans ? parseItems(body, item, spans, memo, hashes) : undefined;
  if (items) return items;
  if (hashes) hashes.length = 0;
  // Not a list the scanner can split, or an item that is not JSON: the whole body, with its errors.
  const payload = envelope.unwrap(res.body);
  if (!Array.isArray(payload)) throw invalidBodyError(body.init, body.res, body.host, 'expected a list');
  const parsed = payload.map((raw, i) => parseItem(body, item, raw, i));
  // Shared strings pay off only in items kept from read to read (a daemon's): a one-shot read drops them after its plan.
  if (memo) {
    const strings = new StringTable();
    for (const one of parsed) strings.internAll(one);
  }
  return parsed;
}

/** Undefined when an item is not JSON. An item the memo keeps is frozen: the next reads hand out the same object. */
function parseItems<T>(
  body: ListBody,
  item: z.ZodType<T>,
  spans: readonly Span[],
  memo: ItemMemo,
  hashes: string[] | undefined,
): T[] | undefined {
  const out: T[] = [];
  const { bytes } = body.res;
  // The items share their strings (the team id, the source and webhook ids they name, ...): kept
  // from read to read, 10,000 items held 10,000 copies of each.
  const strings = new StringTable();
  try {
    for (let i = 0; i < spans.length; i++) {
      const { from, to } = spans[i] as Span;
      const parse = () => deepFreeze(strings.internAll(parseItem(body, item, jsonItem(utf8Text(bytes, from, to)), i)));
      const itemHash = hash('sha256', bytes.subarray(from, to), 'base64');
      hashes?.push(itemHash);
      // One collection's memo holds only what this collection's schema parsed.
      out.push(memo.take(itemHash, parse) as T);
    }
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
  return out;
}

function parseItem<T>(body: ListBody, item: z.ZodType<T>, raw: unknown, i: number): T {
  const parsed = item.safeParse(raw);
  if (!parsed.success)
    throw invalidBodyError(
      body.init,
      body.res,
      body.host,
      `item ${i}: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return parsed.data;
}

/** One item's JSON; a SyntaxError sends the caller back to parsing the whole body. */
function jsonItem(text: string): unknown {
  return JSON.parse(text) as unknown;
}
