/**
 * The parsed items of one collection, kept from its last read and keyed by a hash of each item's
 * raw bytes: an item the service answers byte for byte as before is neither parsed nor validated
 * again, and is the same (frozen) object as last time, which is how the planner's memo knows it
 * unchanged. Owned by whoever reads the collection again and again (the daemon, per target).
 *
 * Bounded: it holds the items of the last complete read only (a read that fails half-way leaves
 * the previous one in place).
 */
export class ItemMemo<T = unknown> {
  #kept = new Map<string, T>();
  #next: Map<string, T> | null = null;

  /** Starts a read (of every page of a list): the items taken until `commit` replace the kept ones. */
  begin(): void {
    this.#next = new Map();
  }

  /** The item kept under this hash, or the one `parse` makes of the raw bytes now. */
  take(hash: string, parse: () => T): T {
    const next = this.#next ?? (this.#next = new Map<string, T>());
    let item = next.get(hash) ?? this.#kept.get(hash);
    if (item === undefined) item = parse();
    next.set(hash, item);
    return item;
  }

  /** The read is complete: only its items are kept. */
  commit(): void {
    if (this.#next === null) return;
    this.#kept = this.#next;
    this.#next = null;
  }

  /** Items kept from the last complete read. */
  get size(): number {
    return this.#kept.size;
  }
}
