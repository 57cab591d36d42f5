/** The lines of a YAML text as the error explanations read them: content or not, indentation, first column, the key. */

export function keyOf(text: string): string | undefined {
  return /^\s*(?:-\s+)?["']?([^"':#]+?)["']?\s*:/.exec(text)?.[1];
}

export function isContent(text: string): boolean {
  const t = text.trim();
  return t !== '' && !t.startsWith('#');
}

export function indentOf(text: string): number {
  return /^[ \t]*/.exec(text)?.[0].length ?? 0;
}

export function firstColumn(text: string): number {
  return indentOf(text) + 1;
}

export function previousContentLine(lines: readonly string[], line: number): number | undefined {
  for (let i = line - 1; i >= 1; i -= 1) if (isContent(lines[i - 1] ?? '')) return i;
  return undefined;
}

export function nextContentLine(lines: readonly string[], line: number): number | undefined {
  for (let i = line + 1; i <= lines.length; i += 1) if (isContent(lines[i - 1] ?? '')) return i;
  return undefined;
}
