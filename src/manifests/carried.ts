/**
 * Trust invariant 5 (DESIGN §4), held here and nowhere else: a credential or a sensitive value
 * never reaches a non-sensitive field. Judged on resolved values — whatever variable, file or var
 * carried them — after interpolation: target credentials (obsync.yaml and the environment, `*_FILE`
 * twins included), the state URL and its password, and every value of a sensitive field of
 * obsync.yaml and of the manifests. A non-sensitive field (a dashboard name, a base URL) whose
 * value contains one is refused, naming the field and where the value comes from, never the value.
 *
 * Short values would block ordinary text: values under GUARD_MIN_LENGTH are not looked for, and
 * values under GUARD_WHOLE_WORD_BELOW only where they stand as a whole word.
 */
import { hash } from 'node:crypto';
import { formatPath, type Diagnostic } from '../core/diagnostics.js';
import { MultiMatcher } from '../core/matcher.js';
import { standsAlone } from '../core/text-units.js';
import type { Position } from './positions.js';

export const GUARD_MIN_LENGTH = 8;
export const GUARD_WHOLE_WORD_BELOW = 16;

/** A sensitive value and where it comes from, in words safe to print (`the target credential OBSYNC_API_KEY`). */
export interface SensitiveValue {
  value: string;
  origin: string;
}

export class SensitiveValues {
  readonly #origins = new Map<string, string>();
  #matcher: MultiMatcher | undefined;
  #fingerprint: string | undefined;

  constructor(values: Iterable<SensitiveValue> = []) {
    for (const v of values) this.add(v.value, v.origin);
  }

  add(value: string, origin: string): void {
    if (value.length < GUARD_MIN_LENGTH || this.#origins.has(value)) return;
    this.#origins.set(value, origin);
    this.#matcher = undefined;
    this.#fingerprint = undefined;
  }

  get size(): number {
    return this.#origins.size;
  }

  /** Equal for equal values and origins, whatever order they came in (it tells a check made against other values; a hash, never shown). */
  fingerprint(): string {
    this.#fingerprint ??= hash(
      'sha256',
      [...this.#origins]
        .map(([value, origin]) => JSON.stringify([value, origin]))
        .sort()
        .join('\n'),
      'base64',
    );
    return this.#fingerprint;
  }

  /** Where the sensitive value `text` contains comes from; undefined when it contains none. */
  carriedIn(text: string): string | undefined {
    if (this.#origins.size === 0 || text.length < GUARD_MIN_LENGTH) return undefined;
    this.#matcher ??= new MultiMatcher(
      [...this.#origins.keys()].map((value) => ({ text: value, foldCase: false, wholeWord: value.length < GUARD_WHOLE_WORD_BELOW })),
    );
    const [found] = this.#matcher.ranges(text);
    if (!found) return undefined;
    for (const [value, origin] of this.#origins) if (occursIn(text, value)) return origin;
    return 'a sensitive value';
  }
}

function occursIn(text: string, value: string): boolean {
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1))
    if (value.length >= GUARD_WHOLE_WORD_BELOW || standsAlone(text, at, at + value.length)) return true;
  return false;
}

/** A document as loaded (after interpolation), with what its schema says is sensitive. */
export interface GuardedDocument {
  file: string;
  /** Where a path of the document is in its file. */
  locate: (path: readonly PropertyKey[]) => Position;
  value: unknown;
  sensitive: (path: readonly PropertyKey[]) => boolean;
  address?: string | undefined;
}

/** One error per non-sensitive string field that carries a sensitive value. */
export function refuseCarried(values: SensitiveValues, documents: readonly GuardedDocument[]): Diagnostic[] {
  if (values.size === 0) return [];
  const out: Diagnostic[] = [];
  for (const d of documents) {
    walkStrings(d.value, [], (text, path) => {
      // The matcher first: asking the schema whether a path is sensitive costs more, and most strings carry nothing.
      const origin = values.carriedIn(text);
      if (origin === undefined || d.sensitive(path)) return;
      const where = formatPath(path);
      out.push({
        severity: 'error',
        code: 'credential-in-field',
        message:
          `${where} contains ${origin} (value not shown): credentials and sensitive values may only be used in sensitive ` +
          `fields (credentials, passwords, keys, webhook URLs), where they are never printed`,
        file: d.file,
        ...d.locate(path),
        path: where,
        ...(d.address ? { address: d.address } : {}),
      });
    });
  }
  return out;
}

function walkStrings(value: unknown, path: PropertyKey[], visit: (text: string, path: PropertyKey[]) => void): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => walkStrings(item, [...path, i], visit));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) walkStrings(item, [...path, key], visit);
}
