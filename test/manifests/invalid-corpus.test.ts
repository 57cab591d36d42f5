/**
 * Every file in ./invalid is one kind of mistake a user makes; its `# expect:` lines say exactly
 * which diagnostics `validate` must report: `# expect: line L col C PATH: MESSAGE-SUBSTRING`
 * (PATH `-` when the problem has no YAML path). No other error may be reported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'invalid');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const EXPECT = /^# expect: line (\d+) col (\d+) (\S+): (.+)$/;

function expectations(file: string) {
  return readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('# expect:'))
    .map((l) => {
      const m = EXPECT.exec(l);
      if (!m) throw new Error(`${file}: malformed expectation: ${l}`);
      return { line: Number(m[1]), col: Number(m[2]), path: m[3] === '-' ? undefined : m[3], message: m[4] ?? '' };
    });
}

describe('invalid manifests corpus', () => {
  it('has at least 24 distinct mistakes', () => {
    expect(files.length).toBeGreaterThanOrEqual(24);
  });

  it.each(files)('%s reports exactly its expected diagnostics', (file) => {
    const expected = expectations(file);
    expect(expected.length).toBeGreaterThan(0);
    const path = join(dir, file);
    const { diagnostics, resources } = loadManifests([path], { env: {} });
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => ({ file: d.file, line: d.line, col: d.col, path: d.path }))).toEqual(
      expected.map((e) => ({ file: path, line: e.line, col: e.col, path: e.path })),
    );
    errors.forEach((d, i) => expect(d.message).toContain(expected[i]?.message));
    // A document with an error never becomes a resource the engine could write.
    expect(resources.every((r) => !errors.some((d) => d.address === r.address && d.code !== 'duplicate-identity'))).toBe(true);
  });
});
