/** How the definition reads a Source spec (the schema in ./schema.ts is the full truth: one form per kind), and its live form. */
import type { Json } from '../../core/wire.js';
import { wireSource } from '../../core/wire.js';
import type { NameOrId } from '../refs.js';

export interface SourceSpecView {
  kind: string;
  name: string;
  connection: NameOrId;
  [field: string]: Json | NameOrId | undefined;
}

/** Links to other sources: the manifest's name → the API's id field. */
export const LINKS = {
  traceSource: 'traceSourceId',
  logSource: 'logSourceId',
  metricSource: 'metricSourceId',
  sessionSource: 'sessionSourceId',
} as const;
export type LinkField = keyof typeof LINKS;

/** A source as the service returns it: every field that is set (selfhosted-api §4.3); the schema lets all of them through. */
export const sourceLive = wireSource;
export type SourceLive = typeof wireSource._zod.output;
