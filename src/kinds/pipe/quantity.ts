/**
 * The hosted API has returned pipe scaling as Kubernetes quantity strings ("500m", "2Gi")
 * instead of numbers (hosted-api §3.7). These parse them back into the units the manifest uses.
 */
const MEMORY_UNITS: Record<string, number> = { '': 1, Gi: 1, G: 1, Mi: 1 / 1024, M: 1 / 1024, Ti: 1024, T: 1024 };

function split(value: string): { n: number; unit: string } | null {
  const m = /^\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*$/.exec(value);
  return m?.[1] === undefined ? null : { n: Number(m[1]), unit: m[2] ?? '' };
}

/** Millicores: "500m" → 500, "2" (cores) → 2000, 500 → 500. */
export function parseMillicores(value: number | string | null | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  const q = split(value);
  if (!q) return null;
  if (q.unit === 'm') return q.n;
  return q.unit === '' ? Math.round(q.n * 1000) : null;
}

/** Gigabytes: "2Gi" → 2, "512Mi" → 0.5, 2 → 2. */
export function parseGigabytes(value: number | string | null | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  const q = split(value);
  const factor = q ? MEMORY_UNITS[q.unit] : undefined;
  return q && factor !== undefined ? q.n * factor : null;
}

export function parseCount(value: number | string | null | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
