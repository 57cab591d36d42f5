import fc from 'fast-check';
import { LineCounter, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { documentStart } from '../manifests/positions.js';
import { YamlDocuments } from './yaml-documents.js';

/** Pieces of documents as people write them: comments, block scalars holding "---"-like text, flow collections over lines. */
const body = fc.constantFrom(
  'kind: Dashboard\nmetadata: {name: a}\n',
  '# a comment\nkind: Alert\nspec:\n  threshold: 5 # inline\n',
  'spec:\n  markdown: |\n    # Title\n    --- not a marker, indented\n  x: 1\n',
  'spec: {tiles: [\n  {x: 1},\n  {y: 2}]}\n',
  'spec:\n  text: "a quoted\n    scalar"\n',
  '# only a comment\n',
  '',
  'list:\n- a\n- b\n',
);
const marker = fc.constantFrom('---\n', '--- # start\n', '---\r\n', '---\n\n');

function wholeParse(text: string) {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter });
  if ('empty' in docs) return [];
  return docs.map((d) => ({ value: d.toJS() as unknown, line: documentStart(d, lineCounter).line }));
}

describe('the documents of a file, cut at its --- lines and parsed one by one', () => {
  it('read as the whole file parsed at once: the same documents, values and start lines', () => {
    fc.assert(
      fc.property(fc.option(body, { nil: undefined }), fc.array(fc.tuple(marker, body), { maxLength: 6 }), (first, rest) => {
        const text = (first ?? '') + rest.map(([m, b]) => m + b).join('');
        const whole = wholeParse(text);
        const docs = new YamlDocuments(text);
        const pieces = Array.from({ length: docs.count }, (_, i) => {
          const placed = docs.at(i);
          if (!placed) return undefined;
          return { value: placed.doc.toJS() as unknown, line: documentStart(placed.doc, placed.lineCounter).line + placed.lineBase };
        });
        // A comment-only text is no document at all when parsed whole.
        expect(pieces.filter((p) => p !== undefined)).toEqual(whole.length === 0 ? [] : whole);
      }),
      { numRuns: 300 },
    );
  });

  it('parses a file with "..." or a directive whole, and cuts nothing inside it', () => {
    const text = '%YAML 1.2\n---\na: 1\n...\n---\nb: 2\n';
    const docs = new YamlDocuments(text);
    expect(docs.count).toBe(2);
    expect(docs.at(1)?.doc.toJS()).toEqual({ b: 2 });
  });
});
