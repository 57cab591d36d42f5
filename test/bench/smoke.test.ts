/**
 * The benchmark is part of the product: `npm run bench -- --smoke` runs every measure of
 * bench/registry.ts at tiny sizes (no timing judged) and fails when one throws, writes no row, or
 * writes a figure that is not finite. A new kind, a moved route or a broken measure fails here,
 * not on the day someone runs the full bench. The bench is transpiled afresh for the run (its own
 * output directory below node_modules/.cache; ./transpile.ts), against the built CLI (dist/, which
 * npm test builds).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../support/cli.js';
import { transpileBench } from './transpile.js';

const REPO = resolve(import.meta.dirname, '../..');
let out: string;

function run(args: string[], timeout: number): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: REPO, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

beforeAll(() => {
  assertBuilt();
  // Below the repository, so the compiled bench finds its dependencies in node_modules.
  const cache = join(REPO, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  out = mkdtempSync(join(cache, 'obsync-bench-smoke-'));
  expect(transpileBench(REPO, join(out, 'dist-bench'))).toBeGreaterThan(0);
}, 60_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('npm run bench -- --smoke', () => {
  it('runs every measure, each writing finite figures in every column of its tables', async () => {
    const results = join(out, 'results.json');
    const smoke = await run(['--expose-gc', join(out, 'dist-bench/bench/run.js'), '--smoke', '--root', REPO, '--out', results], 300_000);
    expect(smoke.code, smoke.output.slice(-6000)).toBe(0);
    const written = JSON.parse(readFileSync(results, 'utf8')) as { mode: string; measures: string[]; results: { measure: string }[] };
    expect(written.mode).toBe('smoke');
    const registry = readFileSync(join(REPO, 'bench/registry.ts'), 'utf8');
    const listed = [...registry.matchAll(/import\('\.\/measures\/([\w-]+)\.js'\)/g)].map((m) => m[1]);
    expect(written.measures.length).toBe(listed.length);
    expect(written.results.length).toBeGreaterThanOrEqual(listed.length);
  }, 320_000);

  it('lists every module of bench/measures/ in the registry, so none is left out of the smoke', () => {
    const registry = readFileSync(join(REPO, 'bench/registry.ts'), 'utf8');
    const modules = readdirSync(join(REPO, 'bench/measures')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(modules.length).toBeGreaterThan(0);
    for (const file of modules)
      expect(registry, `bench/measures/${file} is not in bench/registry.ts`).toContain(
        `import('./measures/${file.replace(/\.ts$/, '.js')}')`,
      );
  });
});
