/**
 * One copy of each distinct string. Values parsed from text (YAML, JSON) get a string of their own
 * per occurrence: a daemon of 20,000 objects held 20,000 copies of "Dashboard", of each source id
 * and of each tile key, 18 MB of its 122 MB heap. Strings are immutable and compared by value, so
 * which copy a value holds changes nothing but the memory. A table lives as long as one load or
 * one read: it keeps nothing alive after it.
 */
export class StringTable {
  readonly #strings = new Map<string, string>();

  /** The table's copy of `s` (`s` itself the first time). */
  of(s: string): string {
    const found = this.#strings.get(s);
    if (found !== undefined) return found;
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
      for (let i = 0; i < value.length; i++) value[i] = this.internAll(value[i] as unknown);
      return value;
    }
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = this.internAll(record[key]);
    return value;
  }

  get size(): number {
    return this.#strings.size;
  }
}
