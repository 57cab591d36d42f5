/**
 * A response body's bytes, and giving their memory back once what was wanted of them is taken.
 *
 * A large body is read into memory of its own (a resizable ArrayBuffer: V8 maps its pages itself,
 * outside malloc), which `releaseBytes` hands back to the system at once by resizing it to
 * nothing. Bytes that Node's allocator held instead stayed resident until a collection freed their
 * buffer, and then in glibc's arenas: a daemon's hosted runs read the same 28 MB of lists every
 * run and allocate too little for a young collection to come, so each run's bodies were still
 * resident when the next one read its own.
 */

/** From this size a body gets memory of its own (below it, pages of their own would cost more than they free). */
export const OWN_MEMORY_FROM = 256 * 1024;

interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  resize(byteLength: number): void;
}

// ES2024's constructor, which the ES2023 lib does not declare; Node 20 has it.
const Resizable = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableArrayBuffer;

function isResizable(buffer: ArrayBufferLike): buffer is ResizableArrayBuffer {
  return buffer instanceof ArrayBuffer && (buffer as Partial<ResizableArrayBuffer>).resizable === true;
}

/** Collects a body's chunks as they stream in: small ones as Node gave them, a large one into memory of its own. */
export class BodyBytes {
  #chunks: Buffer[] = [];
  #own: ResizableArrayBuffer | null = null;
  #size = 0;

  /**
   * `cap`: the most bytes the body may have (the caller stops the read past it); `announced`: its
   * Content-Length, when the server gave one (at most `cap`).
   */
  constructor(
    private readonly cap: number,
    announced?: number,
  ) {
    if (announced !== undefined && announced >= OWN_MEMORY_FROM && announced <= cap)
      this.#own = new Resizable(announced, { maxByteLength: cap });
  }

  get size(): number {
    return this.#size;
  }

  push(chunk: Buffer): void {
    const own = this.#own;
    if (own) {
      this.#copy(own, chunk);
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size >= OWN_MEMORY_FROM && this.#size <= this.cap) this.#moveToOwn();
  }

  /** The body, exactly its bytes. */
  bytes(): Buffer {
    const own = this.#own;
    if (own) {
      // The unused end of the last growth goes back now.
      if (own.byteLength !== this.#size) own.resize(this.#size);
      return Buffer.from(own, 0, this.#size);
    }
    const chunks = this.#chunks;
    return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, this.#size);
  }

  #moveToOwn(): void {
    const own = new Resizable(Math.min(this.cap, this.#size * 2), { maxByteLength: this.cap });
    const view = new Uint8Array(own);
    let at = 0;
    for (const chunk of this.#chunks) {
      view.set(chunk, at);
      at += chunk.length;
    }
    this.#chunks = [];
    this.#own = own;
  }

  #copy(own: ResizableArrayBuffer, chunk: Buffer): void {
    const end = this.#size + chunk.length;
    // Grown in place (the pages are reserved up to the cap): nothing is copied but the chunk.
    if (end > own.byteLength) own.resize(Math.min(this.cap, Math.max(end, own.byteLength * 2)));
    new Uint8Array(own, this.#size, chunk.length).set(chunk);
    this.#size = end;
  }
}

/**
 * Gives the memory of a body's bytes back: a body read into memory of its own at once (every view
 * of it then reads as empty); another buffer the bytes span whole at the next young-generation
 * collection instead of the next full one — transferring it detaches it and hands its memory to a
 * new, unreferenced buffer the scavenger frees. Never a buffer shared with other bytes: a small
 * body can be a slice of Node's pool, which other Buffers use.
 */
export function releaseBytes(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength || buffer.byteLength === 0)
    return;
  if (isResizable(buffer)) buffer.resize(0);
  else structuredClone(buffer, { transfer: [buffer] });
}
