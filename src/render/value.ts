/** Short one-line renderings of JSON values for plan output. */
import type { Json } from '../core/wire.js';

export function inlineValue(value: Json | undefined, max = 100): string {
  if (value === undefined) return '(absent)';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
