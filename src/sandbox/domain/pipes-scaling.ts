/**
 * Pipe scaling (reference/hosted-api.md §3.7): per-pipe replicas, CPU, memory and deprecated
 * concurrency (`PATCH …/scaling`, `scaling` on create), and the service's shared CDC pool
 * (`…/clickpipesCdcScaling`). Out-of-range values are refused with the live API's wording
 * ("replicas: Not between 1 and 40", quoted in clickhousectl's models.rs).
 */
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

/** What a new streaming pipe runs with when its create request has no `scaling` (the live fixture's values). */
export const DEFAULT_SCALING: Readonly<PipeScaling> = { replicas: 1, replicaCpuMillicores: 125, replicaMemoryGb: 0.5, concurrency: null };

function outOfBounds(key: string, raw: unknown, b: Bound): string | undefined {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || (b.integer && !Number.isInteger(raw)))
    return `${key}: Expected ${b.integer ? 'an integer' : 'a number'}`;
  return raw < b.min || raw > b.max ? `${key}: Not between ${b.min} and ${b.max}` : undefined;
}

/** The members to change, or a message naming the offending field. */
export function parseScalingPatch(body: unknown, label = ''): Partial<PipeScaling> | string {
  if (!isPlainObject(body)) return `${label === '' ? 'body' : label.slice(0, -1)} must be an object`;
  const out: Record<string, number> = {};
  for (const [key, raw] of Object.entries(body)) {
    const b = BOUNDS[key];
    if (b === undefined) return `${label}${key} is not a scaling field (replicas, replicaCpuMillicores, replicaMemoryGb, concurrency)`;
    const problem = outOfBounds(`${label}${key}`, raw, b);
    if (problem) return problem;
    out[key] = raw as number;
  }
  if (Object.keys(out).length === 0) return 'at least one of replicas, replicaCpuMillicores, replicaMemoryGb, concurrency is required';
  return out;
}

export interface CdcScaling {
  replicaCpuMillicores: number;
  replicaMemoryGb: number;
}

/** The pool a service gets with its first database pipe (clickhousectl get_cdc_scaling fixture). */
export const DEFAULT_CDC_SCALING: Readonly<CdcScaling> = { replicaCpuMillicores: 2000, replicaMemoryGb: 8 };

/** `PATCH …/clickpipesCdcScaling`: 1000–32000 millicores in steps of 1000, memory 4–128 GB in steps of 4 and 4 × cores. */
export function parseCdcScaling(body: unknown, current: CdcScaling): CdcScaling | string {
  if (!isPlainObject(body)) return 'body must be an object';
  for (const key of Object.keys(body))
    if (key !== 'replicaCpuMillicores' && key !== 'replicaMemoryGb') return `request body property can't be validated: ${key}`;
  const cpu = body.replicaCpuMillicores ?? current.replicaCpuMillicores;
  const memory = body.replicaMemoryGb ?? current.replicaMemoryGb;
  if (typeof cpu !== 'number' || !Number.isInteger(cpu) || cpu < 1000 || cpu > 32000 || cpu % 1000 !== 0) {
    return 'replicaCpuMillicores: must be a multiple of 1000 between 1000 and 32000';
  }
  if (typeof memory !== 'number' || memory < 4 || memory > 128 || memory % 4 !== 0)
    return 'replicaMemoryGb: must be a multiple of 4 between 4 and 128';
  if (memory !== (cpu / 1000) * 4) return 'replicaMemoryGb: must be 4 GB per CPU core (replicaCpuMillicores / 1000 × 4)';
  return { replicaCpuMillicores: cpu, replicaMemoryGb: memory };
}
