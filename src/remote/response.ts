/**
 * Reading a response: its body's bytes, capped while they stream in, and the response over them,
 * decoded and parsed on first use; the server's request id for the request log.
 */
import type { Dispatcher } from 'undici';
import { BodyBytes, releaseBytes } from './body-bytes.js';
import { topLevelMember, utf8Text } from './list-items.js';
import type { Response } from './transport-types.js';

/** A response body past the cap: reading stopped there. */
export class ResponseTooLarge extends Error {
  constructor(
    readonly status: number,
    readonly cap: number,
    /** The Content-Length that announced it, when that is how it was known. */
    readonly announced: number | undefined,
  ) {
    super(`response larger than ${cap} bytes`);
  }
}

/**
 * The body's bytes, read while it streams and abandoned the moment it passes `cap` bytes (or when
 * Content-Length already says it will): a huge answer never sits in memory whole. Not decoded
 * here: a list's unchanged items are recognised by their bytes and never become text (api.ts),
 * so a large list is not held as its bytes, its text and its parsed items at once.
 */
export async function readCapped(res: Dispatcher.ResponseData, cap: number): Promise<Buffer> {
  const header = res.headers['content-length'];
  const announced = Number(Array.isArray(header) ? header[0] : header);
  if (header !== undefined && Number.isFinite(announced) && announced > cap) {
    res.body.destroy();
    throw new ResponseTooLarge(res.statusCode, cap, announced);
  }
  const body = new BodyBytes(header !== undefined && Number.isSafeInteger(announced) && announced >= 0 ? announced : undefined);
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (body.size + chunk.length > cap) {
      res.body.destroy();
      throw new ResponseTooLarge(res.statusCode, cap, undefined);
    }
    body.push(chunk);
  }
  return body.bytes();
}

/**
 * A response over the body's bytes, decoded and parsed on first use: a list read through an item
 * memo looks only at the bytes of the items that changed (api.ts), and decoding or parsing the
 * whole body again would cost what it saves. The in-process sandbox builds its answers here too.
 */
export function responseOf(status: number, headers: Response['headers'], bytes: Uint8Array): Response {
  let body: Uint8Array | null = bytes;
  let text: string | undefined;
  let parsed: { value: unknown } | undefined;
  const readable = (): Uint8Array => {
    if (body === null) throw new Error('internal: a response body was read after it was released');
    return body;
  };
  return {
    status,
    headers,
    get bytes() {
      return readable();
    },
    get text() {
      text ??= utf8Text(readable());
      return text;
    },
    get body() {
      parsed ??= { value: parseJson((text ??= utf8Text(readable()))) };
      return parsed.value;
    },
    release() {
      if (body !== null) releaseBytes(body);
      body = null;
      text = undefined;
      parsed = undefined;
    },
  };
}

/** Headers servers name their request id with; the hosted API puts it in the body's envelope. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-correlation-id'];

/** From the headers, else the body's top-level `requestId` (found without parsing the rest of the body). */
export function requestIdOf(headers: Record<string, string | string[] | undefined>, bytes: Uint8Array): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first) return first.slice(0, 200);
  }
  const inBody = topLevelMember(bytes, 'requestId');
  return typeof inBody === 'string' ? inBody.slice(0, 200) : undefined;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
