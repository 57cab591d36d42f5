/** docs/benchmarks.md's tables are bench/results.json's, as `npm run bench` writes them (issue 46). */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { markdownTables, type Result, withBenchTables } from '../../bench/measure.js';
import { MEASURES } from '../../bench/registry.js';

const REPO = resolve(import.meta.dirname, '../..');

it('shows the tables of bench/results.json, current (run `npm run bench`, or see bench/run.ts)', () => {
  const results = JSON.parse(readFileSync(join(REPO, 'bench/results.json'), 'utf8')) as { results: Result[] };
  const page = readFileSync(join(REPO, 'docs/benchmarks.md'), 'utf8');
  const tables = markdownTables(MEASURES, results.results);
  expect(tables).toContain('| variant | n |');
  expect(page).toBe(withBenchTables(page, tables));
});
