/** The relative links of a Markdown file that point at nothing in a file list (a package's tarball). */
import { posix } from 'node:path';

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** Link targets outside code: inline links and images, reference definitions, HTML src and href. */
export function linkTargets(markdown: string): string[] {
  const prose = markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
  const inline = [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
  const definitions = [...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] ?? '');
  const html = [...prose.matchAll(/\b(?:src|href)\s*=\s*"([^"]+)"/g)].map((m) => m[1] ?? '');
  return [...inline, ...definitions, ...html];
}

/** `file`'s relative links (fragment and query dropped) that name no file of `files` and no folder holding one. */
export function unresolvedLinks(file: string, markdown: string, files: readonly string[]): string[] {
  return linkTargets(markdown)
    .filter((target) => !target.startsWith('#') && !SCHEME.test(target) && !target.startsWith('//'))
    .filter((target) => {
      const path = posix.normalize(posix.join(posix.dirname(file), decodeURI(target.replace(/[#?].*$/, '')))).replace(/\/$/, '');
      return path.startsWith('..') || !(files.includes(path) || files.some((f) => f.startsWith(`${path}/`)));
    })
    .map((target) => `${file}: ${target}`);
}
