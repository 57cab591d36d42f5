/**
 * A credential held in memory. It prints as `(sensitive)` everywhere — JSON, string
 * interpolation, util.inspect (so pino and console cannot leak it) — and only `reveal()`
 * gives the value, at the one place that needs it (building an Authorization header).
 * Creating one tells the scrubber, so the value is masked even where a server echoes it; a
 * connection URL (`Secret.connection`) tells it its passwords only, so where it points stays readable.
 */
import { connectionSecrets, registerSecret, SENSITIVE } from './scrub.js';

export { SENSITIVE };

export class Secret {
  readonly #value: string;

  /** `masked`: what the scrubber is told (the value itself unless said otherwise). */
  constructor(value: string, masked: readonly string[] = [value]) {
    this.#value = value;
    for (const part of masked) registerSecret(part);
  }

  /** A database URL (the PostgreSQL state): its passwords are secret, its user, host and database are not. */
  static connection(url: string): Secret {
    return new Secret(url, connectionSecrets(url));
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
