/** Reading stored JSON values without stringifying objects by accident. */
import type { JsonValue } from './contract.js';

/** The value when it is a string, else `''`. */
export function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}
