/** The parts of a Pipe spec the definition reads (the schema in ./schema.ts is the full truth). */
import type { Json } from '../../core/wire.js';

export type PipeSourceKind = 'kafka' | 'objectStorage' | 'kinesis' | 'pubsub' | 'postgres';

export interface PipeSpecView {
  id?: string | undefined;
  name?: string | undefined;
  state?: 'running' | 'stopped' | undefined;
  settings?: Record<string, number | boolean | null | undefined> | undefined;
  scaling?: Record<string, number | undefined> | undefined;
  source?: Partial<Record<PipeSourceKind, Record<string, Json | undefined> | undefined>> | undefined;
  destination?: { columns: Json[] } | undefined;
  fieldMappings?: Json[] | undefined;
}
