/**
 * The parts of a secret that a server may echo on their own, each a secret of its own for the
 * scrubber (./scrub.ts), which masks them in every form it knows:
 * - of a URL (`https://hooks.example.com/services/T0/B0/XXXX?token=…`, `postgres://u:p@host/db`):
 *   the password, always, and the path segments and query values that look like tokens — each as
 *   written and decoded;
 * - of a JSON document (a generic webhook's body): the document re-serialised compactly, and
 *   every string (or number) in it long enough to be masked inside words (WHOLE_WORD_BELOW):
 *   a server echoes one field (a routing key) alone, or the body without its spaces;
 * - of a text of several words (a body that is not JSON): each word that looks like a token.
 * Never throws (the caller masks the value itself whatever happens here).
 */

/** Strings and numbers taken from one JSON secret, at most: a huge document stays cheap to register. */
const MAX_LEAVES = 1_000;

export function partsOf(value: string, wholeWordBelow: number): string[] {
  const parts = new Set<string>();
  for (const part of [...urlParts(value), ...jsonParts(value, wholeWordBelow), ...wordParts(value)]) if (part !== value) parts.add(part);
  return [...parts];
}

/** A URL with a scheme (`https://`, `postgres://`): its parts are its secrets, not its prefixes. */
export function isUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

/** A JSON object or array as written (its leaves are its secrets, not its prefixes). */
export function looksLikeJson(value: string): boolean {
  const first = value.trimStart().charAt(0);
  return first === '{' || first === '[';
}

/** A path segment, query value or word worth masking alone: a token (digits in it, or long), not a word like `services`. */
function tokenLike(part: string): boolean {
  return part.length >= 20 || (part.length >= 8 && /\d/.test(part));
}

function urlParts(value: string): string[] {
  if (!isUrl(value)) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  const parts = new Set<string>();
  const add = (raw: string, always = false) => {
    for (const form of [raw, decoded(raw)]) if (always || tokenLike(form)) parts.add(form);
  };
  if (url.password !== '') add(url.password, true);
  for (const segment of url.pathname.split('/')) if (segment !== '') add(segment);
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    const raw = pair.slice(pair.indexOf('=') + 1);
    if (raw !== '') add(raw.replace(/\+/g, ' '));
  }
  return [...parts];
}

/**
 * The secrets of a connection URL (`postgres://user:password@host/db?password=…`): its passwords,
 * as written and decoded. The user, host and database are not secret: they say where the state
 * is (issue 53: a URL without a password named its database as `(sensitive)`). A value that is
 * not such a URL is a secret as a whole.
 */
export function connectionSecrets(value: string): string[] {
  if (!isUrl(value)) return [value];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [value];
  }
  const secrets = new Set<string>();
  const add = (raw: string) => {
    for (const form of [raw, decoded(raw)]) if (form !== '') secrets.add(form);
  };
  add(url.password);
  for (const [key, param] of url.searchParams)
    if (/pass|secret|token|key$/i.test(key) && !/^ssl(key|cert|rootcert)$/i.test(key)) add(param);
  return [...secrets];
}

function jsonParts(value: string, wholeWordBelow: number): string[] {
  if (!looksLikeJson(value)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    // A template (`{"key": "…", "value": {{value}}}`) is no JSON: its string literals still are.
    return stringLiterals(value).filter((s) => s.length >= wholeWordBelow);
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  const parts = [JSON.stringify(parsed), JSON.stringify(parsed, null, 2)];
  const pending: unknown[] = [parsed];
  let leaves = 0;
  while (pending.length > 0 && leaves < MAX_LEAVES) {
    const item = pending.pop();
    if (typeof item === 'string' || typeof item === 'number') {
      leaves += 1;
      const text = String(item);
      if (text.length >= wholeWordBelow) parts.push(text);
    } else if (typeof item === 'object' && item !== null) pending.push(...Object.values(item as Record<string, unknown>));
  }
  return parts;
}

function stringLiterals(text: string): string[] {
  const out: string[] = [];
  for (const [literal] of text.matchAll(/"(?:[^"\\\n]|\\.)*"/g)) {
    try {
      out.push(JSON.parse(literal) as string);
    } catch {
      // Not a JSON string after all (an invalid escape): its words are still masked with the whole.
    }
    if (out.length >= MAX_LEAVES) break;
  }
  return out;
}

function wordParts(value: string): string[] {
  if (isUrl(value) || looksLikeJson(value) || !/\s/.test(value)) return [];
  return value.split(/\s+/).filter(tokenLike).slice(0, MAX_LEAVES);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
