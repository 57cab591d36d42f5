/**
 * What a bench measure is, and the helpers the measures share: CPU of an async operation, peak
 * RSS while it runs, ratios. A measure states its sizes for every mode, so `--smoke` (tiny sizes,
 * run by the test suite) covers each one without anyone remembering to add it.
 */
import { peakRssMb, resetPeakRss } from './proc.js';

export type Mode = 'full' | 'quick' | 'smoke';

/** One row of bench/results.json; `measure` names its table. */
export type Result = Record<string, unknown> & { measure: string };

export interface BenchContext {
  readonly mode: Mode;
  /** `--profile`: measures that can write a CPU profile do. */
  readonly profile: boolean;
  /** The repository (bench/ and dist/ are below it). */
  readonly root: string;
  /** The built CLI (dist/cli/main.js), for measures that run `obsync` as a child. */
  readonly cli: string;
  /** Writes a row (printed as it comes, kept for results.json and the tables). */
  record(row: Result): void;
}

export interface Measure {
  /** What `--only` names. */
  readonly name: string;
  /** One line for `--help`. */
  readonly title: string;
  /** The tables this measure's rows go to (a row's `measure`), and their columns; each column is a figure the smoke checks. */
  readonly tables: Readonly<Record<string, readonly string[]>>;
  run(ctx: BenchContext): Promise<void>;
}

/** A measure with its sizes (counts, runs, samples) for each mode. */
export function defineMeasure<Sizes>(m: {
  name: string;
  title: string;
  tables: Readonly<Record<string, readonly string[]>>;
  sizes: Readonly<Record<Mode, Sizes>>;
  run(sizes: Sizes, ctx: BenchContext): Promise<void>;
}): Measure {
  return { name: m.name, title: m.title, tables: m.tables, run: (ctx) => m.run(m.sizes[ctx.mode], ctx) };
}

/** CPU time of the whole process while `f` runs (the bench does nothing else meanwhile). */
export async function cpuMs<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = process.cpuUsage();
  const value = await f();
  const d = process.cpuUsage(t0);
  return { ms: (d.user + d.system) / 1000, value };
}

/**
 * The peak RSS from now until stopped, in MiB: the kernel's high-water mark (VmHWM, reset now)
 * where Linux lets it be reset, which sees a peak inside a long synchronous stretch that no timer
 * can sample; else RSS sampled every 10 ms.
 */
export function peakRss(): { stop(): number } {
  const kernel = resetPeakRss(process.pid);
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      const sampled = Math.round(Math.max(peak, process.memoryUsage.rss()) / 1048576);
      return kernel ? Math.max(sampled, peakRssMb(process.pid)) : sampled;
    },
  };
}

/**
 * A full collection whose freed memory has been given back: array buffers' memory is freed by a
 * background sweeper after the collection returns (the estate a harness seeded left 20–50 MB of
 * them), so a peak measured from here counts what follows, not the harness's set-up.
 */
export async function settledHeap(): Promise<void> {
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 100));
  global.gc?.();
}

export function ratio(a: number, b: number): number {
  return Number((a / Math.max(b, 0.001)).toFixed(2));
}

export function mb(bytes: number): number {
  return Number((bytes / 1048576).toFixed(1));
}

/** On a shared machine noise only ever adds CPU time, so the fastest sample is the best estimate. */
export function fastest(xs: readonly number[]): number {
  return Math.min(...xs);
}

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function printTable(machine: Record<string, unknown>, measures: readonly Measure[], results: readonly Result[]): void {
  console.log(`machine: ${JSON.stringify(machine)}`);
  for (const [table, columns] of measures.flatMap((m) => Object.entries(m.tables))) {
    const rows = results.filter((r) => r.measure === table);
    if (rows.length === 0) continue;
    console.log(`\n${table}`);
    console.log(`| ${columns.join(' | ')} |`);
    console.log(`|${columns.map(() => '---').join('|')}|`);
    for (const row of rows) console.log(`| ${columns.map((c) => format(row[c])).join(' | ')} |`);
  }
}

/** The results as markdown tables, one per measure table (docs/benchmarks.md; a test keeps it equal to bench/results.json). */
export function markdownTables(measures: readonly Measure[], results: readonly Result[]): string {
  const out: string[] = [];
  for (const [table, columns] of measures.flatMap((m) => Object.entries(m.tables))) {
    const rows = results.filter((r) => r.measure === table);
    if (rows.length === 0) continue;
    out.push(`#### ${table}`, '', `| ${columns.join(' | ')} |`, `|${columns.map(() => ' --- ').join('|')}|`);
    for (const row of rows) out.push(`| ${columns.map((c) => format(row[c]).replace(/\|/g, '\\|')).join(' | ')} |`);
    out.push('');
  }
  return out.join('\n');
}

const START = '<!-- bench tables: generated from bench/results.json by `npm run bench` -->';
const END = '<!-- end of bench tables -->';

/** `page` with the generated tables between its markers replaced by `tables`. */
export function withBenchTables(page: string, tables: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md lacks the markers ${START} … ${END}`);
  return `${page.slice(0, start + START.length)}\n\n${tables}\n${page.slice(end)}`;
}

function format(value: unknown): string {
  if (value === undefined || value === null) return '–';
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
