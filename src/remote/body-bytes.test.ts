/** A body's bytes as they stream in: exactly the bytes sent, and a large body's memory given back the moment it is released. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyBytes, OWN_MEMORY_FROM, releaseBytes } from './body-bytes.js';

const CAP = 4 * OWN_MEMORY_FROM;

function chunked(bytes: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  if (at < bytes.length) out.push(bytes.subarray(at));
  return out;
}

function read(chunks: Buffer[], announced?: number): Buffer {
  const body = new BodyBytes(CAP, announced);
  for (const chunk of chunks) body.push(chunk);
  return body.bytes();
}

function resizable(bytes: Uint8Array): boolean {
  return (bytes.buffer as ArrayBuffer & { resizable?: boolean }).resizable === true;
}

describe('BodyBytes', () => {
  it('gives back exactly the bytes that came, whatever the chunks and the announced length (a lying Content-Length too)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: CAP }),
        fc.array(fc.integer({ min: 1, max: 200_000 }), { maxLength: 30 }),
        fc.option(fc.integer({ min: 0, max: CAP }), { nil: undefined }),
        (size, sizes, announced) => {
          const sent = Buffer.alloc(size, 0);
          for (let i = 0; i < size; i += 997) sent[i] = i % 251;
          const got = read(chunked(sent, sizes), announced);
          expect(got.length).toBe(size);
          expect(got.equals(sent)).toBe(true);
          // Exactly its bytes: no spare capacity left resident.
          if (resizable(got)) expect(got.buffer.byteLength).toBe(size);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps a small body as Node gave it, and reads a large one into memory of its own', () => {
    const small = Buffer.from('{"data":[]}');
    expect(read([small])).toBe(small);
    expect(resizable(read([Buffer.alloc(1000), Buffer.alloc(1000)]))).toBe(false);
    expect(resizable(read([Buffer.alloc(OWN_MEMORY_FROM / 2), Buffer.alloc(OWN_MEMORY_FROM / 2)]))).toBe(true);
    expect(resizable(read([Buffer.alloc(10)], OWN_MEMORY_FROM))).toBe(true);
  });

  it('a released large body gives its memory back at once: every view of it reads as empty', () => {
    const sent = Buffer.alloc(OWN_MEMORY_FROM * 2, 7);
    const got = read(chunked(sent, [65_536, 65_536]), sent.length);
    const item = got.subarray(10, 20);
    releaseBytes(got);
    expect(got.buffer.byteLength).toBe(0);
    expect(got.length).toBe(0);
    expect(item.length).toBe(0);
    expect(item[0]).toBeUndefined();
  });

  it('never releases memory other bytes share: a slice of a body of its own is left alone', () => {
    const got = read([Buffer.alloc(OWN_MEMORY_FROM * 2, 1)]);
    releaseBytes(got.subarray(1));
    expect(got.length).toBe(OWN_MEMORY_FROM * 2);
    expect(got[0]).toBe(1);
  });
});
