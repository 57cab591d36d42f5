/** Parsers of numeric flags: a value that is not a number in range is refused by commander, naming the flag. */
import { InvalidArgumentError } from 'commander';

/** A whole number in [min, max] (`--concurrency 4`, `--max-deletes 0`). */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = value.trim() === '' ? Number.NaN : Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER ? `expected a whole number ≥ ${min}` : `expected a whole number from ${min} to ${max}`,
      );
    }
    return n;
  };
}

/** A number in (0, max] or [0, max] (`--timeout 2.5`, `--debounce 500`, `--level 0.99`). */
export function decimal(opts: { min: number; max: number; exclusiveMin?: boolean; unit?: string }): (value: string) => number {
  return (value) => {
    const n = value.trim() === '' ? Number.NaN : Number(value);
    const low = opts.exclusiveMin ? n > opts.min : n >= opts.min;
    if (!Number.isFinite(n) || !low || n > opts.max) {
      const unit = opts.unit ? ` ${opts.unit}` : '';
      throw new InvalidArgumentError(
        `expected a number ${opts.exclusiveMin ? 'above' : 'from'} ` +
          `${opts.min}${opts.exclusiveMin ? ' and up to' : ' to'} ${opts.max}${unit}`,
      );
    }
    return n;
  };
}

/** `--timeout <seconds>`: the deadline of each request to the target. */
export const timeoutSeconds = decimal({ min: 0, max: 600, exclusiveMin: true, unit: 'seconds' });

/** Milliseconds ≥ 0 (`--debounce 1000`). */
export function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected milliseconds ≥ 0');
  return n;
}
