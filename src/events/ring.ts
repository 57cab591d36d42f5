/** A bounded buffer of the newest entries: pushing past its capacity drops the oldest. */
export class Ring<T> {
  readonly #items: (T | undefined)[];
  #next = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a ring holds at least one entry, not ${capacity}`);
    this.#items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    // eslint-disable-next-line no-restricted-syntax -- an array by index
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    for (let i = 0; i < this.#size; i++) out.push(this.#items[(start + i) % this.capacity] as T);
    return out;
  }

  /** The newest `n`, newest first. */
  newest(n: number): T[] {
    const out: T[] = [];
    for (let i = 1; i <= Math.min(n, this.#size); i++) out.push(this.#items[(this.#next - i + this.capacity) % this.capacity] as T);
    return out;
  }
}
