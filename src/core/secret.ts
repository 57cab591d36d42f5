/**
 * A credential held in memory. It prints as `(sensitive)` everywhere — JSON, string
 * interpolation, util.inspect (so pino and console cannot leak it) — and only `reveal()`
 * gives the value, at the one place that needs it (building an Authorization header).
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  get isEmpty(): boolean {
    return this.#value.length === 0;
  }

  toString(): string {
    return SENSITIVE;
  }

  toJSON(): string {
    return SENSITIVE;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return SENSITIVE;
  }
}

/** How a sensitive value is shown in plans, logs, errors and exports. */
export const SENSITIVE = '(sensitive)';
