/** Server and manifest text made inert in markdown: escaped words, code spans, table cells, fenced blocks. */
/** A code block whose fence is longer than any run of backticks inside. */
export function fenced(lang: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}\n`;
}

/**
 * Text from manifests and servers, inert in markdown: on one line, punctuation escaped, and every
 * word that GitHub could turn into a notification or a link — `@user`, `@org/team` (and a chat's
 * `@everyone`), `#123`, `owner/repo#123`, `GH-123`, and the bare URLs GFM links by itself
 * (`https://…`, `www.…`, `mailto:`, `xmpp:`) — set as code, where GitHub leaves it alone.
 * Whole words, not the references alone: `@a#1` must not leave a `#1` that starts a text of its own.
 */
export function escape(text: string): string {
  return text
    .replace(/\r?\n/g, ' ')
    .split(/(\s+)/)
    .map((word) => (REFERENCE.test(word) ? `<code>${html(word)}</code>` : word.replace(/[\\`*_[\]|~<>&]/g, (c) => `\\${c}`)))
    .join('');
}

const REFERENCE = /@|#\d|GH-\d|:\/\/|www\.|mailto:|xmpp:/i;

/** An inline code span of server or manifest text (HTML when backticks or pipes would break it). */
export function code(text: string): string {
  return /[`|\r\n]/.test(text) ? `<code>${html(text.replace(/\r?\n/g, ' '))}</code>` : `\`${text}\``;
}

export function cell(text: string): string {
  return escape(text);
}

export function html(text: string): string {
  return text.replace(/[&<>"|]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '|': '&#124;' })[c] ?? c);
}
