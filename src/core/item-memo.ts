/**
 * The parsed items of one collection, kept from its last read and keyed by a hash of each item's
 * raw bytes: an item the service answers byte for byte as before is neither parsed nor validated
 * again, and is the same (frozen) object as last time, which is how the planner's memo knows it
 * unchanged. Owned by whoever reads the collection again and again (the daemon, per target).
 *
 * It also keeps each page's ETag when the service gave one, with the page's items in order: the
 * next read asks for the page conditionally, and a 304 hands out the kept items without a body
 * being sent at all (remote/api.ts).
 *
 * Bounded: it holds the items and pages of the last complete read only (a read that fails
 * half-way leaves the previous one in place).
 */
export class ItemMemo<T = unknown> {
  #kept = new Map<string, T>();
  #next: Map<string, T> | null = null;
  #pages = new Map<string, KeptPage<T>>();
  #nextPages: Map<string, KeptPage<T>> | null = null;

  /** Starts a read (of every page of a list): the items taken until `commit` replace the kept ones. */
  begin(): void {
    this.#next = new Map();
    this.#nextPages = new Map();
  }

  /** The page last read in full from this request: its ETag asks the service whether it is still current. */
  keptPage(request: string): KeptPage<T> | undefined {
    return this.#pages.get(request);
  }

  /** A page read in full, with the hash of each item's bytes: its ETag lets the next read ask for it conditionally. */
  keepPage(request: string, page: KeptPage<T>): void {
    (this.#nextPages ??= new Map()).set(request, page);
  }

  /**
   * The service answered that `page` — the one whose ETag the request sent, as `keptPage` gave it
   * then — is current (304): its items are taken as they were, the same objects in the same order.
   * Not looked up again: another read of the collection may have kept a newer page meanwhile,
   * which the 304 does not vouch for.
   */
  reusePage(request: string, page: KeptPage<T>): void {
    const next = this.#next ?? (this.#next = new Map<string, T>());
    for (let i = 0; i < page.items.length; i++) next.set(page.hashes[i] as string, page.items[i] as T);
    (this.#nextPages ??= new Map()).set(request, page);
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
    this.#pages = this.#nextPages ?? new Map<string, KeptPage<T>>();
    this.#nextPages = null;
  }

  /** Items kept from the last complete read. */
  get size(): number {
    return this.#kept.size;
  }
}

/** A page of a list as last read: its ETag, its items in order and the hash of each one's bytes, the list's total its body gave. */
export interface KeptPage<T> {
  readonly etag: string;
  readonly hashes: readonly string[];
  readonly items: readonly T[];
  readonly bodyTotal: number | undefined;
  /** The answer gave a total (in its body or its headers): a 304 that gives none cannot stand for it. */
  readonly hadTotal: boolean;
}
