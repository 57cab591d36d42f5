/**
 * What `--smoke` checks of the rows the measures wrote: each measure wrote at least one row, every
 * row belongs to one of its tables and has every column of that table, and every number in it is
 * finite (a NaN or an Infinity is a measure that broke without throwing).
 */
import type { Measure, Result } from './measure.js';

export function smokeProblems(measures: readonly Measure[], results: readonly Result[]): string[] {
  const problems: string[] = [];
  for (const m of measures) {
    const rows = results.filter((r) => Object.hasOwn(m.tables, r.measure));
    if (rows.length === 0) problems.push(`${m.name}: wrote no result`);
    for (const row of rows) {
      for (const column of m.tables[row.measure] ?? [])
        if (row[column] === undefined || row[column] === null) problems.push(`${m.name}: ${row.measure}.${column} is missing`);
      for (const [field, value] of Object.entries(row))
        for (const bad of notFinite(value)) problems.push(`${m.name}: ${row.measure}.${field} is not a finite figure (${bad})`);
    }
  }
  return problems;
}

function notFinite(value: unknown): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [String(value)];
  if (Array.isArray(value)) return value.flatMap(notFinite);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(notFinite);
  return [];
}
