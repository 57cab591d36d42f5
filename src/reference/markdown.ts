/**
 * Markdown that both GitHub and the docs site (VitePress, which compiles each page as a Vue
 * template) show as written: outside code spans, `<` is escaped so that a `<file>` is not taken
 * for an HTML tag, and `{{` so that it is not taken for an interpolation.
 */
export function text(s: string): string {
  return outsideCode(s, (part) => part.replace(/</g, '&lt;').replace(/\{\{/g, '&#123;&#123;')).replace(/\n/g, ' ');
}

/** `text` for a table cell: a `|` would end the cell, inside a code span too (GitHub's tables). */
export function cell(s: string): string {
  return text(s).replace(/\|/g, '\\|');
}

function outsideCode(s: string, f: (part: string) => string): string {
  return s
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : f(part)))
    .join('');
}

/** An inline code span holding `s`, whatever backticks it contains. */
export function code(s: string): string {
  const fence = s.includes('`') ? '``' : '`';
  return `${fence}${s.startsWith('`') || s.endsWith('`') ? ` ${s} ` : s}${fence}`;
}

/** The header every generated page starts with. */
export function generatedHeader(source: string): string {
  return `<!-- Generated from ${source} by \`npm run docs\`. Do not edit. -->`;
}
