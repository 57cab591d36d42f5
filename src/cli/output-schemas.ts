/**
 * The JSON Schemas of obsync's JSON outputs, generated from the zod schemas that define them
 * (and parse a saved plan back). Committed as docs/schema/*.schema.json (`npm run docs` writes
 * them; a test keeps the files equal to this and validates real outputs against them).
 */
import * as z from 'zod';
import { outputSchemaId } from '../core/published.js';
import { statusSchema } from '../events/status-model.js';
import { eventSchema } from '../events/vocabulary.js';
import { genericPayloadSchema } from '../notify/payload.js';
import { applyReportSchema } from '../render/apply-json.js';
import { OUTPUT_FORMAT_VERSION, planDocumentSchema } from '../render/plan-schema.js';
import { pullReportSchema } from '../writeback/pull-json.js';

export const OUTPUT_SCHEMAS = {
  'plan.schema.json': { schema: planDocumentSchema, title: `obsync plan, format ${OUTPUT_FORMAT_VERSION}` },
  'apply-report.schema.json': { schema: applyReportSchema, title: `obsync apply report, format ${OUTPUT_FORMAT_VERSION}` },
  'pull-report.schema.json': { schema: pullReportSchema, title: `obsync pull report, format ${OUTPUT_FORMAT_VERSION}` },
  'event.schema.json': { schema: eventSchema, title: 'obsync event (GET /api/events, /api/events/stream)' },
  'status.schema.json': { schema: statusSchema, title: 'obsync daemon status (GET /api/status)' },
  'notification.schema.json': { schema: genericPayloadSchema, title: 'obsync notification (a generic sink receives it)' },
} as const;

export type OutputSchemaFile = keyof typeof OUTPUT_SCHEMAS;

export function outputJsonSchema(file: OutputSchemaFile): Record<string, unknown> {
  const { schema, title } = OUTPUT_SCHEMAS[file];
  const generated = z.toJSONSchema(schema, { target: 'draft-07', io: 'output' }) as Record<string, unknown>;
  return { ...generated, $id: outputSchemaId(file), title };
}

export function outputJsonSchemaText(file: OutputSchemaFile): string {
  return `${JSON.stringify(outputJsonSchema(file), null, 2)}\n`;
}
