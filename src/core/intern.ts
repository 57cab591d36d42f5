/**
 * One copy of each distinct string. Values parsed from text (YAML, JSON) get a string of their own
 * per occurrence: a daemon of 20,000 objects held 20,000 copies of "Dashboard", of each source id
 * and of each tile key, 18 MB of its 122 MB heap. Strings are immutable and compared by value, so
 * which copy a value holds changes nothing but the memory. A table lives as long as one load or
 * one read: it keeps nothing alive after it.
 */
import { setOwn } from './json.js';

export class StringTable {
  #strings = new Map<string, string>();

  /**
   * `capacity`: the most strings held at once; a full table starts over. Most distinct strings of
   * a large read occur once (names, ids), the shared ones (the team id, source ids) again and
   * again: a table that starts over keeps a copy of each shared one per round (a few hundred
   * strings), while one that grows with every distinct string reached 100,000 entries for a list
   * of 10,000 dashboards, its tables V8's large objects, 3.5 MB of a first plan's garbage.
   * 4,096 keeps the table an ordinary young object (under 128 KB).
   */
  constructor(private readonly capacity = 4096) {}

  /** The table's copy of `s` (`s` itself the first time since the table last started over). */
  of(s: string): string {
    const found = this.#strings.get(s);
    if (found !== undefined) return found;
    if (this.#strings.size >= this.capacity) this.#strings = new Map<string, string>();
    this.#strings.set(s, s);
    return s;
  }

  /**
   * Every string in a JSON-like value (plain objects and arrays, not frozen) replaced in place by
   * the table's copy; answers the value. Property names need nothing: V8 keeps one copy of each.
   */
  internAll<T>(value: T): T {
    if (typeof value === 'string') return this.of(value) as T;
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      // eslint-disable-next-line no-restricted-syntax -- an array, by index
      for (let i = 0; i < value.length; i++) value[i] = this.internAll(value[i] as unknown);
      return value;
    }
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) setOwn(record, key, this.internAll(record[key]));
    return value;
  }

  get size(): number {
    return this.#strings.size;
  }
}
