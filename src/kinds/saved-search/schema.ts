/**
 * The SavedSearch manifest spec (selfhosted-api §3.4): a named search over a source, which
 * saved-search alerts watch. The source is a reference by name (a Source manifest, or one of the
 * service's sources) or `{id}`.
 */
import * as z from 'zod';
import { refTo } from '../ref-schema.js';
import type { SavedSearchSpecView } from './model.js';
import { NOT_BLANK_PATTERN } from '../rules.js';

const conditionFilter = z
  .strictObject({
    type: z.enum(['sql', 'lucene']).optional().describe('Language of the condition: sql (the default) or lucene.'),
    condition: z.string().max(8192).describe('The condition (at most 8,192 characters).'),
  })
  .describe('A condition.');
const astFilter = z
  .strictObject({
    type: z.literal('sql_ast').describe('Always sql_ast.'),
    operator: z.enum(['=', '<', '>', '!=', '<=', '>=']).describe('Comparison: =, <, >, !=, <= or >=.'),
    left: z.string().max(8192).describe('Left operand, a column or expression.'),
    right: z.string().max(8192).describe('Right operand.'),
  })
  .describe('A comparison of two expressions.');

const filter = z
  .union([astFilter, conditionFilter], {
    error: () => 'a filter is {condition, type?: sql | lucene} or {type: sql_ast, operator, left, right}',
  })
  .meta({
    id: 'SavedSearchFilter',
    description:
      'A filter of the search sidebar. The service accepts a new or changed filter only as one SQL predicate it can show in the ' +
      'sidebar: `<column> IN (...)`, `<column> NOT IN (...)` or `<column> BETWEEN <n> AND <n>`; other forms only as kept unchanged.',
  });

export const savedSearchSpecSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .regex(new RegExp(NOT_BLANK_PATTERN), { error: 'a saved search name cannot be blank' })
      .max(1024)
      .describe(
        'Name of the saved search on the service (1-1,024 characters, surrounding spaces dropped). Alerts name it; with the source, ' +
          'how an existing search is adopted.',
      ),
    source: refTo('source').describe(
      'Source the search runs on: the metadata.name of a Source manifest, the name of a source on the service, or {id: "..."}.',
    ),
    select: z.string().max(4096).optional().describe("Columns shown, comma-separated (default: the source's default select)."),
    where: z.string().max(8192).optional().describe('The search condition (default: none).'),
    whereLanguage: z.enum(['lucene', 'sql']).optional().describe('Language of where: lucene (the default) or sql.'),
    orderBy: z.string().max(1024).optional().describe('Sort order of the rows, e.g. "Timestamp DESC" (default: the source\'s).'),
    tags: z
      .array(z.string().max(32).describe('A tag (at most 32 characters).'))
      .max(50)
      .optional()
      .describe('Tags (at most 50, each at most 32 characters).'),
    filters: z.array(filter).max(100).optional().describe('Sidebar filters (at most 100).'),
  })
  .meta({ id: 'SavedSearchSpec', description: 'A saved search: a named search over a source, which saved-search alerts watch.' });

export type SavedSearchSpec = z.output<typeof savedSearchSpecSchema>;
// The definition (./definition.ts) reads specs through SavedSearchSpecView: keep the schema assignable.
const _assignable: (s: SavedSearchSpec) => SavedSearchSpecView = (s) => s;
void _assignable;
