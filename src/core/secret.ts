/**
 * A credential held in memory. It prints as `(sensitive)` everywhere — JSON, string
 * interpolation, util.inspect (so pino and console cannot leak it) — and only `reveal()`
 * gives the value, at the one place that needs it (building an Authorization header).
 * Creating one tells the scrubber, so the value is masked even where a server echoes it.
 */
import { registerSecret, SENSITIVE } from './scrub.js';

export { SENSITIVE };

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    registerSecret(value);
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
