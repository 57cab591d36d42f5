/**
 * Cursor paging of `POST /api/v2/search`, newer than b52a6fa8. Ported from hyperdx
 * packages/api/src/routers/external-api/v2/utils/__tests__/searchCursor.test.ts @ d827590d (its
 * newest version: the range carried, not fingerprinted; the offset cap) and
 * __tests__/searchWindows.test.ts @ 0ffe81b0, both calling the sandbox's own functions as the real
 * ones call the server's (no sandbox is started). The route's behaviour over HTTP is in
 * search-cursor-http.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeSearchCursor,
  encodeSearchCursor,
  fingerprintQuery,
  resolveSearchWindows,
} from '../../../src/sandbox/domain/search-cursor.js';

const FP_INPUT = {
  sourceId: '69b46cb0d964ce2d0b9506a8',
  where: 'SeverityText:ERROR',
  whereLanguage: 'lucene',
  select: 'Timestamp,Body',
  orderBy: 'Timestamp DESC',
};
const RANGE = { startTime: '2026-05-10T00:00:00.000Z', endTime: '2026-05-10T01:00:00.000Z' };

describe('searchCursor.test.ts > searchCursor', () => {
  it('round-trips window index and offset', () => {
    const fp = fingerprintQuery(FP_INPUT);
    const cursor = encodeSearchCursor({ windowIndex: 3, offset: 500, ...RANGE }, fp);
    expect(decodeSearchCursor(cursor, fp)).toEqual({ windowIndex: 3, offset: 500, ...RANGE });
  });

  it('rejects a cursor minted for a different query', () => {
    const fp = fingerprintQuery(FP_INPUT);
    const cursor = encodeSearchCursor({ windowIndex: 1, offset: 0, ...RANGE }, fp);
    const otherFp = fingerprintQuery({ ...FP_INPUT, where: 'SeverityText:WARN' });
    expect(decodeSearchCursor(cursor, otherFp)).toEqual({ error: 'CURSOR_QUERY_MISMATCH' });
  });

  it('rejects malformed and unknown-version cursors', () => {
    const fp = fingerprintQuery(FP_INPUT);
    expect(decodeSearchCursor('not-base64!!', fp)).toEqual({ error: 'INVALID_CURSOR' });
    const future = Buffer.from(JSON.stringify({ v: 99, w: 0, o: 0, f: fp })).toString('base64url');
    expect(decodeSearchCursor(future, fp)).toEqual({ error: 'INVALID_CURSOR' });
  });

  it('rejects a cursor whose offset exceeds the request offset cap', () => {
    const fp = fingerprintQuery(FP_INPUT);
    const overCap = encodeSearchCursor({ windowIndex: 0, offset: 10_001, ...RANGE }, fp);
    expect(decodeSearchCursor(overCap, fp)).toEqual({ error: 'INVALID_CURSOR' });
    const atCap = encodeSearchCursor({ windowIndex: 0, offset: 10_000, ...RANGE }, fp);
    expect(decodeSearchCursor(atCap, fp)).toMatchObject({ offset: 10_000 });
  });

  it('carries the time range instead of fingerprinting it', () => {
    const fp = fingerprintQuery(FP_INPUT);
    const cursor = encodeSearchCursor({ windowIndex: 1, offset: 5, ...RANGE }, fp);
    expect(decodeSearchCursor(cursor, fp)).toMatchObject(RANGE);
  });

  it('changes the fingerprint for every field that changes the result set', () => {
    const base = fingerprintQuery(FP_INPUT);
    for (const patch of [
      { sourceId: 'aaaaaaaaaaaaaaaaaaaaaaaa' },
      { where: 'x:1' },
      { whereLanguage: 'sql' },
      { select: 'Body' },
      { orderBy: 'Timestamp ASC' },
    ]) {
      expect(fingerprintQuery({ ...FP_INPUT, ...patch })).not.toEqual(base);
    }
  });
});

const START = new Date('2026-05-10T00:00:00.000Z');
const END = new Date('2026-05-11T00:00:00.000Z');

describe('searchWindows.test.ts > resolveSearchWindows', () => {
  it('windows a timestamp-led descending order', () => {
    const windows = resolveSearchWindows('Timestamp', 'Timestamp DESC', START, END);
    expect(windows.length).toBeGreaterThan(1);
    expect(windows[0]?.direction).toBe('DESC');
    expect(windows[0]?.endTime).toEqual(END);
  });

  it('windows a timestamp-led ascending order in the other direction', () => {
    const windows = resolveSearchWindows('Timestamp', 'Timestamp ASC', START, END);
    expect(windows[0]?.direction).toBe('ASC');
    expect(windows[0]?.startTime).toEqual(START);
  });

  it('disengages windowing when the order does not lead with the timestamp', () => {
    const windows = resolveSearchWindows('Timestamp', 'SeverityText DESC', START, END);
    expect(windows).toHaveLength(1);
    expect(windows[0]?.startTime).toEqual(START);
    expect(windows[0]?.endTime).toEqual(END);
  });

  it('returns exactly one window when start equals end', () => {
    expect(resolveSearchWindows('Timestamp', 'Timestamp DESC', START, START)).toHaveLength(1);
  });

  it('covers the full range with no gaps between adjacent windows', () => {
    const windows = resolveSearchWindows('Timestamp', 'Timestamp DESC', START, END);
    for (let i = 0; i + 1 < windows.length; i++) expect(windows[i]?.startTime).toEqual(windows[i + 1]?.endTime);
    expect(windows.at(-1)?.startTime).toEqual(START);
    expect(windows[0]?.endTime).toEqual(END);
  });
});
