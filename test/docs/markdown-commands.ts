/**
 * The commands a page tells a reader to type, as written: its ```sh blocks, each followed by the
 * ```text block (if any) of what the output must contain.
 */
export interface CommandBlock {
  /** The block's lines, as typed. */
  script: string;
  /** Lines the output must contain, each one. */
  expect: string[];
}

export function commandBlocks(markdown: string): CommandBlock[] {
  const blocks: CommandBlock[] = [];
  for (const m of markdown.matchAll(/^```(sh|text)\n([\s\S]*?)^```$/gm)) {
    const [, lang, body = ''] = m;
    if (lang === 'sh') blocks.push({ script: body, expect: [] });
    else blocks.at(-1)?.expect.push(...body.split('\n').filter((l) => l.trim() !== ''));
  }
  return blocks;
}

/** The part of `markdown` from the heading `## title` to the next heading of that level or higher. */
export function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
  const end = markdown.slice(start + 1).search(/\n##? /);
  return end < 0 ? markdown.slice(start) : markdown.slice(start, start + 1 + end);
}
