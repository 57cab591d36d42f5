import { describe, expect, it } from 'vitest';
import type { Edit } from './edits.js';
import { editFile, parseFile } from './yaml-file.js';

/** The file's text after these edits of its first document (and removals). */
function edited(text: string, edits: Edit[], removed: number[] = [], doc = 0): string | null {
  const file = parseFile('m.yaml', text);
  if (!file) throw new Error('does not parse');
  const result = editFile(file, new Map([[doc, edits]]), new Set(removed));
  if ('error' in result) throw new Error(`${result.error} at ${JSON.stringify(result.path)}`);
  return result.text;
}

/** The lines of `after` that are not lines of `before` (what an edit changed). */
function changedLines(before: string, after: string): string[] {
  const old = new Set(before.split('\n'));
  return after.split('\n').filter((l) => !old.has(l));
}

const DASHBOARD = `# The checkout dashboard.
apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: checkout # identity
spec:
  name: 'Checkout service'
  tags: [payments, prod]
  tiles:
    # the latency tile
    - key: p99
      name: "p99 latency"
      x: 0   # left
      y: 0
      w: 12
      h: 4
      config: {displayType: line, source: Traces}

    - name: errors
      layout: {x: 12, y: 0}
      config:
        displayType: markdown
        markdown: |
          # Errors
          see the runbook
`;

describe('editing a manifest in place', () => {
  it('changes a moved tile on its x and y lines only, keeping the comment after x', () => {
    const after = edited(DASHBOARD, [
      { op: 'set', path: ['spec', 'tiles', 0, 'x'], value: 6 },
      { op: 'set', path: ['spec', 'tiles', 0, 'y'], value: 8 },
    ]);
    expect(after).toBe(DASHBOARD.replace('x: 0   # left', 'x: 6   # left').replace('      y: 0\n', '      y: 8\n'));
  });

  it('edits inside a flow map, and keeps each string in its quoting style', () => {
    const after = edited(DASHBOARD, [
      { op: 'set', path: ['spec', 'tiles', 1, 'layout', 'x'], value: 0 },
      { op: 'set', path: ['spec', 'tiles', 0, 'name'], value: 'p95 latency' },
      { op: 'set', path: ['spec', 'name'], value: "Checkout's service" },
      { op: 'add', path: ['spec', 'tiles', 1, 'layout'], key: 'w', value: 6 },
    ]);
    expect(changedLines(DASHBOARD, after ?? '')).toEqual([
      "  name: 'Checkout''s service'",
      '      name: "p95 latency"',
      '      layout: {x: 0, y: 0, w: 6}',
    ]);
  });

  it('quotes a value that plain style would read as something else', () => {
    const after = edited(DASHBOARD, [
      { op: 'set', path: ['spec', 'tiles', 1, 'name'], value: '12' },
      { op: 'set', path: ['spec', 'tags', 1], value: 'a, b' },
    ]);
    expect(changedLines(DASHBOARD, after ?? '')).toEqual(['  tags: [payments, "a, b"]', '    - name: "12"']);
  });

  it('rewrites a block scalar as a block scalar at its indentation', () => {
    const after = edited(DASHBOARD, [{ op: 'set', path: ['spec', 'tiles', 1, 'config', 'markdown'], value: '# Errors\nsee the wiki\n' }]);
    expect(after).toBe(DASHBOARD.replace('see the runbook', 'see the wiki'));
  });

  it('adds and removes map entries and list items as whole lines at their neighbours’ indentation', () => {
    const after = edited(DASHBOARD, [
      { op: 'remove', path: ['spec', 'tiles', 0, 'h'] },
      { op: 'add', path: ['spec', 'tiles', 0], key: 'previousKeys', value: ['old'], after: 'w' },
      { op: 'insert', path: ['spec', 'tiles'], index: 2, value: { name: 'new', x: 0, config: { displayType: 'markdown' } } },
      { op: 'insert', path: ['spec', 'tags'], index: 0, value: 'gitops' },
    ]);
    expect(after).toBe(
      DASHBOARD.replace('      h: 4\n', '')
        .replace('      w: 12\n', '      w: 12\n      previousKeys: [old]\n')
        .replace('  tags: [payments', '  tags: [gitops, payments')
        .concat('    - name: new\n      x: 0\n      config:\n        displayType: markdown\n'),
    );
  });

  it('removes a list item with its lines, and the first entry of an item without its dash', () => {
    const removedItem = edited(DASHBOARD, [{ op: 'remove', path: ['spec', 'tiles', 0] }]);
    expect(removedItem).toBe(DASHBOARD.replace(/ {4}- key: p99\n[\s\S]*?config: \{displayType: line, source: Traces\}\n/, ''));
    const removedKey = edited(DASHBOARD, [{ op: 'remove', path: ['spec', 'tiles', 0, 'key'] }]);
    expect(removedKey).toBe(DASHBOARD.replace('- key: p99\n      name:', '- name:'));
  });

  it('keeps CRLF line endings, in the edited lines too', () => {
    const crlf = DASHBOARD.replaceAll('\n', '\r\n');
    const after = edited(crlf, [
      { op: 'set', path: ['spec', 'tiles', 0, 'x'], value: 3 },
      { op: 'add', path: ['spec', 'tiles', 0], key: 'tabId', value: 't1' },
    ]);
    expect(after).toBe(
      crlf.replace('x: 0   # left', 'x: 3   # left').replace('source: Traces}\r\n', 'source: Traces}\r\n      tabId: t1\r\n'),
    );
    expect(after?.replaceAll('\r\n', '')).not.toContain('\n');
  });

  it('edits one document of several, and removes another with its own lines only', () => {
    const multi =
      `${DASHBOARD}---\n# the alert\napiVersion: obsync/v1\nkind: Alert\nmetadata: {name: a}\nspec: {threshold: ` +
      `5}\n---\napiVersion: obsync/v1\nkind: Alert\nmetadata: {name: b}\nspec: {threshold: 7}\n`;
    const file = parseFile('m.yaml', multi);
    if (!file) throw new Error('does not parse');
    const result = editFile(file, new Map([[2, [{ op: 'set', path: ['spec', 'threshold'], value: 9 }] as Edit[]]]), new Set([1]));
    expect(result).toEqual({ text: `${DASHBOARD}---\napiVersion: obsync/v1\nkind: Alert\nmetadata: {name: b}\nspec: {threshold: 9}\n` });
    const all = editFile(file, new Map(), new Set([0, 1, 2]));
    expect(all).toEqual({ text: null });
  });

  it('changes the anchored value where it stands and keeps its anchor', () => {
    const text = 'spec:\n  a: &n 5\n  b: 6\n';
    expect(edited(text, [{ op: 'set', path: ['spec', 'b'], value: 7 }])).toBe('spec:\n  a: &n 5\n  b: 7\n');
  });

  it('refuses an edit it cannot place, and one through an alias', () => {
    const file = parseFile('m.yaml', 'spec:\n  a: &n {x: 1}\n  b: *n\n');
    if (!file) throw new Error('does not parse');
    const result = editFile(file, new Map([[0, [{ op: 'set', path: ['spec', 'b', 'x'], value: 2 }] as Edit[]]]), new Set());
    expect(result).toMatchObject({ error: 'the value is an alias of an anchor' });
  });
});
