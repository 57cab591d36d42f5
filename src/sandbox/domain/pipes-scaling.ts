/** `PATCH …/scaling` (reference/hosted-api.md §3.7): per-pipe replicas, CPU, memory, deprecated concurrency. */
import type { PipeScaling } from './pipes-record.js';
import { isPlainObject } from './pipes-settings.js';

interface Bound {
  min: number;
  max: number;
  integer: boolean;
}

const BOUNDS: Readonly<Record<string, Bound>> = {
  replicas: { min: 1, max: 40, integer: true },
  replicaCpuMillicores: { min: 125, max: 2000, integer: true },
  replicaMemoryGb: { min: 0.5, max: 8, integer: false },
  concurrency: { min: 0, max: 34, integer: true },
};

/** The members to change, or a message naming the offending field. */
export function parseScalingPatch(body: unknown): Partial<PipeScaling> | string {
  if (!isPlainObject(body)) return 'body must be an object';
  const out: Record<string, number> = {};
  for (const [key, raw] of Object.entries(body)) {
    const b = BOUNDS[key];
    if (b === undefined) return `${key} is not a scaling field (replicas, replicaCpuMillicores, replicaMemoryGb, concurrency)`;
    if (typeof raw !== 'number' || !Number.isFinite(raw) || (b.integer && !Number.isInteger(raw)) || raw < b.min || raw > b.max) {
      return `${key} must be ${b.integer ? 'an integer' : 'a number'} between ${b.min} and ${b.max}`;
    }
    out[key] = raw;
  }
  if (Object.keys(out).length === 0) return 'at least one of replicas, replicaCpuMillicores, replicaMemoryGb, concurrency is required';
  return out;
}
