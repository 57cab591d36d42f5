/**
 * Issue 40 item 5: a YAML merge key (`<<: *defaults`) was read as a key named '<<' ("unknown key
 * '<<' — did you mean …?"). Merge keys now work in manifests and in obsync.yaml, through every
 * step that reads a document by path: the values, their interpolation (a target's merged
 * credentials are resolved when only that target is selected), unknown keys and positions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { loadManifests } from './load.js';
import { MERGED_NODES_LIMIT } from './merge-keys.js';

const dir = mkdtempSync(join(tmpdir(), 'obsync-merge-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(text: string, env: Record<string, string> = {}) {
  const file = join(dir, 'm.yaml');
  writeFileSync(file, text);
  return loadManifests([file], { env });
}

const board = (tiles: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: board}
spec:
  name: Board
  tiles:
${tiles}`;

describe('merge keys in manifests', () => {
  it('merge a map, a key written beside it winning, with the merged values interpolated', () => {
    const { resources, diagnostics } = load(
      board(`    - &tile {key: p99, name: p99, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: "\${env:NOTE}"}}
    - <<: *tile
      key: p95
      name: p95
      x: 6
`),
      { NOTE: 'from env' },
    );
    expect(diagnostics).toEqual([]);
    const tiles = (resources[0]?.spec as { tiles: unknown[] }).tiles;
    expect(tiles[1]).toMatchObject({ key: 'p95', name: 'p95', x: 6, y: 0, w: 6, h: 2, config: { markdown: 'from env' } });
    expect(tiles[0]).toMatchObject({ key: 'p99', x: 0 });
  });

  it('merge a list of maps (the first wins) and name a merged mistake at the line that wrote it, under its merged path', () => {
    const { diagnostics } = load(
      board(`    - &a {key: p99, name: p99, x: 0, y: 0, w: 6, h: 2, colour: red, config: {displayType: markdown}}
    - &b {x: 9, w: 3}
    - <<: [*b, *a]
      key: p95
`),
    );
    const mistakes = diagnostics.map((d) => `${d.line} ${d.path} ${d.message}`);
    expect(mistakes).toContainEqual(expect.stringMatching(/^7 spec\.tiles\[2\]\.colour unknown key 'colour'/));
    expect(mistakes.join('\n')).not.toContain("'<<'");
  });

  it('refuse what a merge key cannot take, saying what it takes, at its line', () => {
    const scalar = load(board(`    - <<: 5\n      key: p95\n`));
    expect(scalar.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'yaml-merge',
        line: 7,
        message: expect.stringMatching(/^a merge key \(<<\) takes a map/) as unknown,
      }),
    );
    const itself = load(board(`    - &t {key: p9, <<: *t}\n`));
    expect(itself.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'yaml-merge', message: expect.stringContaining('merges a map into itself') as unknown }),
    );
  });

  it('refuse merges that would copy more than the limit (a small file may not grow without bound)', () => {
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}: ${i}`).join(', ');
    const copies = Array.from({ length: Math.ceil(MERGED_NODES_LIMIT / 400) + 1 }, () => '  - <<: *big').join('\n');
    const { diagnostics } = load(`big: &big {${keys}}\nlist:\n${copies}\n`);
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ code: 'yaml-merge', message: expect.stringContaining('copy more than') as unknown }),
    );
  });
});

describe('merge keys in obsync.yaml', () => {
  it('give a target the settings of another, resolved for it alone when only it is selected', () => {
    const text = `apiVersion: obsync/v1
kind: Config
targets:
  - &prod {name: prod, variant: self-hosted, baseUrl: "http://127.0.0.1:8000", credentials: {apiKey: "\${env:KEY}"}}
  - <<: *prod
    name: staging
`;
    const out = loadConfig('/r/obsync.yaml', { KEY: 'k-1' }, { readFile: () => text, select: () => ['staging'] });
    expect(out.diagnostics).toEqual([]);
    // The config holds the selected targets.
    expect(out.config?.targets).toHaveLength(1);
    expect(out.config?.targets?.[0]).toEqual({
      name: 'staging',
      variant: 'self-hosted',
      baseUrl: 'http://127.0.0.1:8000',
      credentials: { apiKey: 'k-1' },
    });
  });

  it('name a merged mistake at its line, under the path of the target that merged it', () => {
    const text = `apiVersion: obsync/v1
kind: Config
targets:
  - &prod {name: prod, variant: self-hosted, baseUrl: "http://127.0.0.1:8000", credentials: {apiKey: k}, retires: 2}
  - <<: *prod
    name: staging
`;
    const out = loadConfig('/r/obsync.yaml', {}, { readFile: () => text });
    const mistakes = out.diagnostics.map((d) => `${d.line} ${d.path} ${d.message}`);
    expect(mistakes).toContainEqual(expect.stringMatching(/^4 targets\[1\]\.retires unknown key 'retires' — did you mean 'retries'\?/));
  });
});
