/** UTF-16 units as the matcher judges them: folded case, word units and word boundaries, and what looks like part of a token. */
/** Every UTF-16 code unit. */
const UNITS = 0x10000;

/**
 * A fragment of fewer than FRAGMENT_DISTINCT_MIN different characters (a run of zeros a secret ends
 * with, padding) tells nothing of a random secret and is what ids and numbers are made of: it is
 * not masked on its own (the whole secret always is).
 */
const FRAGMENT_DISTINCT_MIN = 4;

export function variedEnough(text: string, start: number, end: number): boolean {
  const seen = new Set<number>();
  for (let i = start; i < end && seen.size < FRAGMENT_DISTINCT_MIN; i++) seen.add(text.charCodeAt(i));
  return seen.size >= FRAGMENT_DISTINCT_MIN;
}

/** A fragment short enough to be a word is masked only when it looks like part of a token: a digit in it, or both letter cases. */
export function tokenLike(text: string, start: number, end: number): boolean {
  let upper = false;
  let lower = false;
  for (let i = start; i < end; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x30 && unit <= 0x39) return true;
    const char = text.charAt(i);
    if (char !== char.toLowerCase()) upper = true;
    else if (char !== char.toUpperCase()) lower = true;
    if (upper && lower) return true;
  }
  return false;
}

const WORD = /[\p{L}\p{N}\p{M}_]/u;

function isWordUnit(text: string, index: number): boolean {
  const unit = text[index];
  return unit !== undefined && WORD.test(unit);
}

/** Nothing word-like is joined to `text[start, end)`: a boundary on each side, as `\b` would see it. */
export function standsAlone(text: string, start: number, end: number): boolean {
  const joinedBefore = start > 0 && isWordUnit(text, start - 1) && isWordUnit(text, start);
  const joinedAfter = end < text.length && isWordUnit(text, end) && isWordUnit(text, end - 1);
  return !joinedBefore && !joinedAfter;
}

let folds: Uint16Array | undefined;

/** A UTF-16 unit without case: lower(upper(c)) where both stay one unit (so `ſ`, `S` and `s` meet), else itself. */
export function fold(unit: number): number {
  if (unit < 0x80) return unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
  folds ??= new Uint16Array(UNITS);
  const known = folds[unit] ?? 0;
  if (known !== 0) return known;
  const char = String.fromCharCode(unit);
  const upper = char.toUpperCase();
  const lower = (upper.length === 1 ? upper : char).toLowerCase();
  const folded = lower.length === 1 ? lower.charCodeAt(0) : unit;
  // eslint-disable-next-line no-restricted-syntax -- a typed array by code unit
  folds[unit] = folded;
  return folded;
}
