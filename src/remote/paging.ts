/**
 * Reading a limit/offset list to its end, and only to its end (Trust rule "every input is
 * bounded"). A service that lies — a `meta.total` of 1e12, every offset answered with the first
 * page, pages that never run dry — must neither keep obsync paging for ever nor leave it with a
 * part of the list: a partial list plans as if the missing objects were gone (a duplicate
 * create, or a delete whose cascade takes along an unowned object nobody saw). So a list ends
 * only where the service's own answers agree that it ends, and any disagreement fails the read.
 *
 * Pure: the pager sees pages and says "the next offset", "done" or throws PagingInconsistent.
 */

/** The most pages one list may take: 100,000 objects of one kind at 1,000 a page (10× DESIGN's scale). */
export const MAX_PAGES = 100;

/** What a page says: the ids it holds (in order) and the total the service announced with it, if any. */
export interface Page {
  ids: readonly string[];
  total: number | undefined;
}

export type PagingProblem =
  /** A page of ids all seen before: the service ignores `offset` (or loops). */
  | 'repeated'
  /** More distinct objects than the service announced (beyond objects created meanwhile). */
  | 'exceeds-total'
  /** Fewer distinct objects than announced when the pages ran dry (a truncated list, or a false total). */
  | 'short-of-total'
  /** A total that is no count (negative, fractional, not a number). */
  | 'bad-total'
  /** More pages (or an announced total larger) than one list may take. */
  | 'too-many-pages';

export class PagingInconsistent extends Error {
  constructor(
    readonly problem: PagingProblem,
    /** The offset of the page that showed it. */
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How far the number of distinct objects may stray from the announced total: objects created or
 * deleted by someone else while the pages are read, and rows the service counts but cannot
 * serialise (HyperDX drops those from `data` and still counts them in `meta.total`).
 */
export function totalMargin(total: number): number {
  return Math.max(10, Math.ceil(total / 100));
}

/** One list read: feed it every page, in order, until `accept` answers `done`. */
export class Pager {
  readonly #seen = new Set<string>();
  #offset = 0;
  #pages = 0;

  constructor(
    readonly limit: number,
    readonly maxPages: number = MAX_PAGES,
  ) {}

  /** The offset of the next page to ask for. */
  get offset(): number {
    return this.#offset;
  }

  /** How many distinct objects so far. */
  get count(): number {
    return this.#seen.size;
  }

  /** Takes the page read at `offset`; `more` asks for the page at the new `offset`, `done` ends the list. */
  accept(page: Page): 'more' | 'done' {
    const offset = this.#offset;
    this.#pages += 1;
    const total = checkedTotal(page.total, offset, this.limit * this.maxPages);
    let fresh = 0;
    for (const id of page.ids) {
      if (this.#seen.has(id)) continue;
      this.#seen.add(id);
      fresh += 1;
    }
    if (page.ids.length > 0 && fresh === 0)
      throw new PagingInconsistent(
        'repeated',
        offset,
        `the page at offset ${offset} holds only objects of earlier pages (the service ignores offset, or loops)`,
      );
    if (total !== undefined && this.#seen.size > total + totalMargin(total))
      throw new PagingInconsistent(
        'exceeds-total',
        offset,
        `the service announced ${total} objects and sent more than ${total + totalMargin(total)} different ones`,
      );
    if (!this.#more(page, total)) {
      if (total !== undefined && this.#seen.size + totalMargin(total) < total)
        throw new PagingInconsistent(
          'short-of-total',
          offset,
          `the service announced ${total} objects and its pages ran out after ${this.#seen.size}`,
        );
      return 'done';
    }
    if (this.#pages >= this.maxPages)
      throw new PagingInconsistent(
        'too-many-pages',
        offset,
        `the list goes on past ${this.maxPages} pages of ${this.limit} (${this.#seen.size} objects so far), ` +
          `more than obsync reads of one kind`,
      );
    this.#offset += this.limit;
    return 'more';
  }

  /**
   * Whether the page at the next offset belongs to the list. An empty page ends it; so does a page
   * longer than the limit asked (the service does not page: that was everything). Otherwise the
   * total decides when there is one (pages may be short of rows the service could not serialise),
   * and a short page when there is none.
   */
  #more(page: Page, total: number | undefined): boolean {
    if (page.ids.length === 0 || page.ids.length > this.limit) return false;
    if (total !== undefined) return this.#offset + this.limit < total;
    return page.ids.length === this.limit;
  }
}

function checkedTotal(total: number | undefined, offset: number, most: number): number | undefined {
  if (total === undefined) return undefined;
  if (!Number.isSafeInteger(total) || total < 0)
    throw new PagingInconsistent('bad-total', offset, `the service announced a total of ${String(total)}, which is no count of objects`);
  if (total > most)
    throw new PagingInconsistent(
      'too-many-pages',
      offset,
      `the service announced ${total} objects, more than obsync reads of one kind (${most})`,
    );
  return total;
}
