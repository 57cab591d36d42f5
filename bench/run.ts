/**
 * `npm run bench [-- --quick | --smoke] [--only NAME,...] [--profile] [--out FILE] [--root DIR]`:
 * obsync's cost against the sandbox on loopback, reported as ratios measured in one run (the
 * machines are noisy). The sandbox runs in a child process, so CPU figures count obsync alone.
 * The measures are listed in bench/registry.ts; each writes rows to bench/results.json (full
 * runs; `--quick` writes bench/results.local.json, `--smoke` bench/results.smoke.json) and the
 * tables are printed.
 *
 * `--smoke` runs every measure at tiny sizes in seconds, with no timing judged: it checks that each
 * completed and wrote its rows, every column of its tables present and every figure finite, and
 * exits 1 otherwise. The test suite runs it (test/bench/smoke.test.ts).
 *
 * `--only` keeps the rows of the measures that did not run from the results file it writes.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchContext, Mode, Result } from './measure.js';
import { markdownTables, printTable, withBenchTables } from './measure.js';
import { MEASURES } from './registry.js';
import { smokeProblems } from './smoke.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

if (flag('--help')) {
  console.log('npm run bench -- [--quick | --smoke] [--only NAME,...] [--profile] [--out FILE] [--root DIR]\n\nmeasures:');
  for (const m of MEASURES) console.log(`  ${m.name.padEnd(12)} ${m.title}`);
  process.exit(0);
}

const mode: Mode = flag('--smoke') ? 'smoke' : flag('--quick') ? 'quick' : 'full';
const root = resolve(value('--root') ?? join(import.meta.dirname, '../..'));
const only = value('--only')?.split(',');
const unknown = only?.filter((name) => !MEASURES.some((m) => m.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`bench: no measure named ${unknown.join(', ')} (measures: ${MEASURES.map((m) => m.name).join(', ')})`);
  process.exit(2);
}
const chosen = MEASURES.filter((m) => !only || only.includes(m.name));
const defaultOut = { full: 'bench/results.json', quick: 'bench/results.local.json', smoke: 'bench/results.smoke.json' }[mode];
const resultsFile = resolve(value('--out') ?? join(root, defaultOut));

const results: Result[] = [];
const failures: string[] = [];
const ctx: BenchContext = {
  mode,
  profile: flag('--profile'),
  root,
  cli: join(root, 'dist/cli/main.js'),
  record(row) {
    results.push(row);
    console.error(JSON.stringify(row));
  },
};
for (const measure of chosen) {
  const started = performance.now();
  try {
    await measure.run(ctx);
    console.error(`bench: ${measure.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    failures.push(`${measure.name}: failed: ${message}`);
    console.error(`bench: ${measure.name} failed: ${message}`);
  }
}

const machine = { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', platform: process.platform };
/** With --only, the rows of the measures that did not run are kept from the file (and its mode, which describes them). */
function previousResults(): { mode?: Mode; results: Result[] } {
  if (!only || !existsSync(resultsFile)) return { results: [] };
  const tables = new Set(chosen.flatMap((m) => Object.keys(m.tables)));
  const previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as { mode?: Mode; quick?: boolean; results?: Result[] };
  const previousMode = previous.mode ?? (previous.quick === true ? 'quick' : previous.quick === false ? 'full' : undefined);
  return {
    ...(previousMode ? { mode: previousMode } : {}),
    results: (previous.results ?? []).filter((r) => !tables.has(r.measure)),
  };
}
const kept = previousResults();
const all = [...kept.results, ...results];
const document = {
  machine,
  mode: kept.mode ?? mode,
  date: new Date().toISOString().slice(0, 10),
  // Every measure the file has rows of (an --only run keeps the others' rows, so it names them too).
  measures: MEASURES.filter((m) => Object.keys(m.tables).some((t) => all.some((r) => r.measure === t))).map((m) => m.name),
  results: all,
};
writeFileSync(resultsFile, `${JSON.stringify(document, null, 2)}\n`);
// The checked-in results are the docs' table (docs/benchmarks.md): one current table, its history in Git.
if (resultsFile === resolve(join(root, 'bench/results.json'))) {
  const docs = join(root, 'docs/benchmarks.md');
  writeFileSync(docs, withBenchTables(readFileSync(docs, 'utf8'), markdownTables(MEASURES, all)));
}
printTable(machine, MEASURES, all);

if (mode === 'smoke') {
  // What the file says, not what this process holds: the smoke checks that results were written.
  const written = JSON.parse(readFileSync(resultsFile, 'utf8')) as { results: Result[] };
  failures.push(...smokeProblems(chosen, written.results));
}
if (failures.length > 0) {
  console.error(`\nbench: ${failures.length} problem(s):\n${failures.map((f) => `  - ${f}`).join('\n')}`);
  process.exit(1);
}
console.error(`bench: results in ${resultsFile}`);
