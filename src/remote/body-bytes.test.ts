/** A body's bytes as they stream in: exactly the bytes sent, copied into one buffer of their own when their length was announced. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyBytes, PREALLOCATE_FROM, releaseBytes } from './body-bytes.js';

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

/** Chunks as a socket gives them: each a buffer of its own, which BodyBytes may free once copied. */
function owned(chunks: Buffer[]): Buffer[] {
  return chunks.map((c) => Buffer.from(Uint8Array.prototype.slice.call(c).buffer));
}

function read(chunks: Buffer[], announced?: number): Buffer {
  const size = chunks.reduce((n, c) => n + c.length, 0);
  const body = new BodyBytes(announced);
  for (const chunk of chunks) body.push(chunk);
  expect(body.size).toBe(size);
  return body.bytes();
}

function spansItsBuffer(bytes: Buffer): boolean {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}

describe('BodyBytes', () => {
  it('gives back exactly the bytes that came, whatever the chunks and the announced length (a wrong Content-Length too)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 * PREALLOCATE_FROM }),
        fc.array(fc.integer({ min: 1, max: 3 * PREALLOCATE_FROM }), { maxLength: 20 }),
        fc.option(fc.integer({ min: 0, max: 5 * PREALLOCATE_FROM }), { nil: undefined }),
        fc.boolean(),
        (size, sizes, announced, exact) => {
          const sent = Buffer.alloc(size);
          for (let i = 0; i < size; i++) sent[i] = (i * 7) % 251;
          const got = read(owned(chunked(sent, sizes)), exact ? size : announced);
          expect(got.equals(sent)).toBe(true);
          // What the body was copied into is never handed out beyond its bytes.
          expect(got.length).toBe(size);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('an announced body is one buffer of its own, which a release detaches whole', () => {
    const sent = Buffer.alloc(3 * PREALLOCATE_FROM, 9);
    const got = read(chunked(sent, [1000, 65_536, 20_000]), sent.length);
    expect(spansItsBuffer(got)).toBe(true);
    releaseBytes(got);
    expect(got.length).toBe(0);
  });

  it('a body longer than announced is still read whole; one shorter is its bytes only, in a buffer of its own', () => {
    const sent = Buffer.alloc(2 * PREALLOCATE_FROM, 3);
    expect(read(chunked(sent, [50_000, 50_000]), PREALLOCATE_FROM).equals(sent)).toBe(true);
    const short = read([sent.subarray(0, 70_000)], sent.length);
    expect(short.equals(sent.subarray(0, 70_000))).toBe(true);
    expect(spansItsBuffer(short)).toBe(true);
  });

  it('a small or unannounced body is kept as Node gave it (one chunk as it is)', () => {
    const one = Buffer.from('{"data":[]}');
    expect(read([one], one.length)).toBe(one);
    expect(read([one])).toBe(one);
  });

  it('frees each chunk it copied into an announced body, and never a chunk it keeps or one that shares its buffer', () => {
    const sent = Buffer.alloc(3 * PREALLOCATE_FROM, 5);
    const chunks = owned(chunked(sent, [40_000, 100_000]));
    const body = new BodyBytes(sent.length);
    for (const chunk of chunks) body.push(chunk);
    expect(chunks.map((c) => c.length)).toEqual([0, 0, 0]);
    expect(body.bytes().equals(sent)).toBe(true);

    // Unannounced: the chunks are the body.
    const kept = owned(chunked(sent, [100_000]));
    const whole = new BodyBytes();
    for (const chunk of kept) whole.push(chunk);
    expect(kept.every((c) => c.length > 0)).toBe(true);
    expect(whole.bytes().equals(sent)).toBe(true);

    // Slices of one buffer: copied, and the buffer left to its other views.
    const shared = Buffer.from(sent);
    const slices = chunked(shared, [70_000]);
    const sliced = new BodyBytes(sent.length);
    for (const chunk of slices) sliced.push(chunk);
    expect(shared.equals(sent)).toBe(true);
    expect(sliced.bytes().equals(sent)).toBe(true);
  });
});

describe('releaseBytes', () => {
  it('gives the memory back at once, with no collection between (Node drops what is posted to a closed port)', () => {
    const size = 64 * 1024 * 1024;
    const big = Buffer.allocUnsafeSlow(size);
    // arrayBuffers counts the whole process, other test workers' buffers too: only the drop across
    // the release is this test's, measured with nothing in between.
    const held = process.memoryUsage().arrayBuffers;
    releaseBytes(big);
    const after = process.memoryUsage().arrayBuffers;
    expect(big.length).toBe(0);
    expect(held - after).toBeGreaterThanOrEqual(size / 2);
  });
});
