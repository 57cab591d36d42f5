/**
 * What the sandbox's OTLP receiver keeps: the newest rows of each table, bounded (the oldest go
 * first), in memory only. Sources whose table is otel_traces or otel_logs read them through the
 * sandbox's search and chart series routes (./query.ts).
 */
import type { Row } from './rows.js';

export const OTEL_TABLES = ['otel_traces', 'otel_logs', 'otel_metrics'] as const;
export type OtelTable = (typeof OTEL_TABLES)[number];

export const DEFAULT_ROW_LIMIT = 10_000;

export class OtlpStore {
  readonly #tables = new Map<OtelTable, Row[]>(OTEL_TABLES.map((t) => [t, []]));

  constructor(private readonly limit = DEFAULT_ROW_LIMIT) {}

  add(table: OtelTable, rows: readonly Row[]): void {
    const kept = this.#tables.get(table) ?? [];
    kept.push(...rows.slice(-this.limit));
    if (kept.length > this.limit) kept.splice(0, kept.length - this.limit);
    this.#tables.set(table, kept);
  }

  /** The rows of a table, oldest first (a copy). */
  rows(table: OtelTable): Row[] {
    return [...(this.#tables.get(table) ?? [])];
  }

  clear(): void {
    for (const t of OTEL_TABLES) this.#tables.set(t, []);
  }
}

export function isOtelTable(name: string): name is OtelTable {
  return (OTEL_TABLES as readonly string[]).includes(name);
}
