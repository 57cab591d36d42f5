/**
 * A response body's bytes as they stream in, and their memory given back the moment they are no
 * longer wanted. A body whose length the server announced is copied into one buffer of that size
 * as each chunk arrives, and each chunk's memory is freed as soon as it is copied; a list body is
 * freed once its items are taken (api.ts). Otherwise Node frees a buffer's memory only when the
 * garbage collector finds its object dead, and a daemon's run that reads 14 MB of lists and then
 * allocates little brings no collection: the bodies of one run were still resident when the next
 * read its own.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/** From this announced length a body gets its buffer up front (below it, Node's chunks are as cheap). */
export const PREALLOCATE_FROM = 64 * 1024;

export class BodyBytes {
  #chunks: Buffer[] = [];
  #into: Buffer | null;
  #size = 0;

  /** `announced`: the body's Content-Length, when the server gave one. */
  constructor(announced?: number) {
    this.#into = announced !== undefined && announced >= PREALLOCATE_FROM ? Buffer.allocUnsafeSlow(announced) : null;
  }

  get size(): number {
    return this.#size;
  }

  /** Takes a chunk the caller hands over for good: once copied, its memory is freed (see `releaseBytes`). */
  push(chunk: Buffer): void {
    const into = this.#into;
    const size = this.#size;
    // Counted before the copy: a released chunk's length reads 0.
    this.#size = size + chunk.length;
    if (into !== null && this.#size <= into.length) {
      chunk.copy(into, size);
      releaseBytes(chunk);
    } else {
      // Longer than announced: collected chunk by chunk from here, what came so far first.
      if (into !== null) this.#chunks.push(into.subarray(0, size));
      this.#into = null;
      this.#chunks.push(chunk);
    }
  }

  /** The body, exactly its bytes; a buffer of its own when it was announced (a released body can then be freed whole). */
  bytes(): Buffer {
    const into = this.#into;
    if (into !== null) return this.#size === into.length ? into : Buffer.concat([into.subarray(0, this.#size)], this.#size);
    const chunks = this.#chunks;
    return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, this.#size);
  }
}

/**
 * Frees the memory of bytes that span their buffer whole, now: the buffer is detached (every view
 * of it reads as empty after). Anything else is left alone: a small Buffer can be a slice of
 * Node's shared pool, and a slice's neighbours are other bytes someone may still read.
 *
 * Detaching is `ArrayBuffer.prototype.transfer(0)` where the runtime has it (Node 21 and later,
 * the container's Node 24). Node 20 has not: there it is a transfer to a MessagePort that is
 * closed, which Node still serialises (it must throw what a live port would) and then drops, and
 * with it the memory. `structuredClone` with a transfer would hand the memory to a new,
 * unreferenced buffer, which only the next collection frees; it is the fallback should a port
 * refuse. Releasing never fails a read. A test holds the runtime to freeing at once.
 */
export function releaseBytes(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength || buffer.byteLength === 0)
    return;
  try {
    if (TRANSFER) TRANSFER.call(buffer, 0);
    else dropping().postMessage(null, [buffer]);
  } catch {
    try {
      structuredClone(buffer, { transfer: [buffer] });
    } catch {
      // Not detachable here: the collector frees it as any other buffer.
    }
  }
}

/** Node 21 and later (ES2024); absent from Node 20's types and runtime. */
const TRANSFER = (ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer }).transfer;

let closedPort: MessagePort | undefined;

function dropping(): MessagePort {
  if (closedPort === undefined) {
    const { port1 } = new MessageChannel();
    port1.close();
    closedPort = port1;
  }
  return closedPort;
}
