import { describe, expect, it } from 'vitest';
import type { Edit } from './edits.js';
import { decide } from './merge.js';
import type { DocumentAsk } from './proposals.js';
import { parseFile } from './yaml-file.js';

const TEXT = `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: storefront
spec:
  name: Storefront
  tiles:
    - key: p99
      x: 0
`;
const file = parseFile('/p/base/storefront.yaml', TEXT);
if (!file) throw new Error('does not parse');

const moved: Edit = { op: 'set', path: ['spec', 'tiles', 0, 'x'], value: 6 };

function ask(target: string, edits: Edit[], extra: Partial<DocumentAsk> = {}): DocumentAsk {
  return {
    target,
    address: 'Dashboard/storefront',
    file: file?.path ?? '',
    line: 1,
    index: 0,
    edits,
    shown: edits.map((edit) => ({ edit, before: 0 })),
    refused: [],
    remove: false,
    edited: false,
    ...extra,
  };
}

describe('a document several targets read (a shared base folder)', () => {
  it('is edited when every target asks the same edit', () => {
    const decision = decide([ask('staging', [moved]), ask('production', [moved])], ['staging', 'production'], file);
    expect(decision.kind).toBe('edit');
  });

  it('is a conflict naming each target and its value when only some targets drifted', () => {
    const decision = decide([ask('staging', [moved])], ['staging', 'production'], file);
    expect(decision).toEqual({
      kind: 'conflicts',
      conflicts: [
        expect.objectContaining({
          path: 'spec.tiles[0].x',
          line: 9,
          reason: 'targets-differ',
          live: { staging: 6, production: '(as in the manifest)' },
          targets: ['staging', 'production'],
        }),
      ],
    });
  });

  it('is a conflict when the targets ask different values', () => {
    const other: Edit = { ...moved, value: 3 };
    const decision = decide([ask('staging', [moved]), ask('production', [other])], ['staging', 'production'], file);
    expect(decision.kind === 'conflicts' && decision.conflicts.map((c) => c.live)).toEqual([{ staging: 6, production: 3 }]);
  });
});

describe('a document one target reads', () => {
  it('is left whole when the manifest was changed since the last apply', () => {
    const decision = decide([ask('staging', [moved], { edited: true })], ['staging'], file);
    expect(decision.kind === 'conflicts' && decision.conflicts.map((c) => c.reason)).toEqual(['manifest-changed']);
  });

  it('reports a refused edit at its line with both values, a sensitive one masked', () => {
    const refused = [{ path: ['name'], reason: 'sensitive' as const, manifest: 'a', live: 'b' }];
    const decision = decide([ask('staging', [], { refused })], ['staging'], file);
    expect(decision.kind === 'conflicts' && decision.conflicts).toEqual([
      expect.objectContaining({ path: 'spec.name', line: 6, manifest: '(sensitive)', live: '(sensitive)', reason: 'sensitive' }),
    ]);
  });
});
