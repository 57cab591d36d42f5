/** The plan's markdown section that links the preview files (relative paths: a CI job uploads them beside the comment). */
import { escape } from '../markdown-text.js';

export type PreviewLink = { address: string; svg: string; png: string } | { address: string; skipped: string };

export function previewsMarkdown(links: readonly PreviewLink[]): string {
  if (links.length === 0) return '';
  const lines = links.map((l) =>
    'skipped' in l
      ? `- ${escape(`preview skipped: ${l.address}: ${l.skipped}`)}`
      : `- ${escape(l.address)}: [![${escape(l.address)}](${linkPath(l.png)})](${linkPath(l.svg)})`,
  );
  return `#### Previews\n\n${lines.join('\n')}\n`;
}

/** A relative path as a link target: each segment percent-encoded, so a space or a parenthesis cannot end the link. */
function linkPath(path: string): string {
  return path
    .split(/[\\/]/)
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** The same, one line each, for the text and JSON outputs (on stderr: stdout stays the plan). */
export function previewLines(links: readonly PreviewLink[]): string[] {
  return links.map((l) => ('skipped' in l ? `preview skipped: ${l.address}: ${l.skipped}` : `preview: ${l.address}: ${l.svg}, ${l.png}`));
}
