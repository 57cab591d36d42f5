/**
 * A response body's bytes as they stream in. A body whose length the server announced is copied
 * into one buffer of that size as each chunk arrives, so no chunk is held once copied: Node's
 * socket buffers go at the next young collection, instead of all of them being kept until the
 * last arrives and then copied whole (a first read of 10,000 dashboards held its 9 MB twice).
 */

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

  push(chunk: Buffer): void {
    const into = this.#into;
    if (into !== null && this.#size + chunk.length <= into.length) chunk.copy(into, this.#size);
    else {
      // Longer than announced: collected chunk by chunk from here, what came so far first.
      if (into !== null) this.#chunks.push(into.subarray(0, this.#size));
      this.#into = null;
      this.#chunks.push(chunk);
    }
    this.#size += chunk.length;
  }

  /** The body, exactly its bytes; a buffer of its own when it was announced (a released body can then be detached whole). */
  bytes(): Buffer {
    const into = this.#into;
    if (into !== null) return this.#size === into.length ? into : Buffer.concat([into.subarray(0, this.#size)], this.#size);
    const chunks = this.#chunks;
    return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, this.#size);
  }
}
