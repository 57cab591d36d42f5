/** Opens the configured state backend; PostgreSQL (and its driver) is loaded only when used. */
import type { Secret } from '../core/secret.js';
import { leaseTiming, type StateBackend } from './backend.js';
import { FileStateBackend } from './file-backend.js';

export type StateSpec =
  | { backend: 'file'; dir: string; leaseSeconds?: number | undefined }
  | { backend: 'postgres'; url: Secret; schema: string; leaseSeconds?: number | undefined };

/**
 * `prepare`: the command writes, so the state may be created or migrated; a read-only one finds it as it is.
 * `parallelRuns`: how many targets' runs may use the state at once (the daemon's limit).
 */
export async function openStateBackend(spec: StateSpec, opts: { prepare: boolean; parallelRuns?: number }): Promise<StateBackend> {
  const timing = leaseTiming(spec.leaseSeconds);
  if (spec.backend === 'file') return new FileStateBackend(spec.dir, timing);
  const { openPostgresState } = await import('./postgres/backend.js');
  return openPostgresState({
    url: spec.url,
    schema: spec.schema,
    timing,
    prepare: opts.prepare,
    ...(opts.parallelRuns ? { parallelRuns: opts.parallelRuns } : {}),
  });
}
