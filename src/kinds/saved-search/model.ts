/** The parts of a SavedSearch spec the definition reads (the schema in ./schema.ts is the full truth), and its live form. */
import * as z from 'zod';
import { wireSavedSearch } from '../../core/wire.js';
import type { NameOrId } from '../refs.js';

export type SavedSearchFilter =
  | { type?: 'lucene' | 'sql' | undefined; condition: string }
  | { type: 'sql_ast'; operator: string; left: string; right: string };

export interface SavedSearchSpecView {
  name: string;
  source: NameOrId;
  select?: string | undefined;
  where?: string | undefined;
  whereLanguage?: 'lucene' | 'sql' | undefined;
  orderBy?: string | undefined;
  tags?: string[] | undefined;
  filters?: SavedSearchFilter[] | undefined;
}

/** A saved search as the service returns it (selfhosted-api §4.3): every field, filters as stored with their type. */
export const savedSearchLive = wireSavedSearch.extend({
  select: z.string().optional(),
  where: z.string().optional(),
  whereLanguage: z.string().optional(),
  orderBy: z.string().optional(),
  tags: z.array(z.string()).optional(),
  filters: z.array(z.record(z.string(), z.json())).optional(),
});
export type SavedSearchLive = z.output<typeof savedSearchLive>;
