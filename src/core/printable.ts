/**
 * Text from users and servers (YAML keys, values, error bodies) made safe for a terminal: control
 * characters — escape sequences that clear the screen or move the cursor, carriage returns that
 * overwrite a line — and bidirectional overrides are shown as `\u001b`-style escapes instead of
 * being obeyed. Newlines are kept only when asked (multi-line error reports).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_WITH_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escapeChar = (c: string): string => {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
};

/** One line of output: every control character escaped, newlines included. */
export function printable(text: string): string {
  return text.replace(UNSAFE_WITH_NEWLINE, escapeChar);
}

/** Several lines of output: newlines and tabs kept, every other control character escaped. */
export function printableLines(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}
