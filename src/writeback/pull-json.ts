/**
 * `obsync pull --output json`: what pull changed (or, with --check, would change) as one document
 * for scripts and CI gates — per file its edits with their lines, the documents removed and the
 * manifests made, then the conflicts, the objects deleted on the service and the errors. Paths
 * are relative to the working directory, as in the text. The values are the text report's: a
 * sensitive one is already `(sensitive)` in the result; every string still passes the one
 * scrubber here, and the CLI's output pass on its way out. Schema: docs/schema/pull-report.schema.json.
 */
import * as z from 'zod';
import { scrubDeep } from '../core/scrub.js';
import type { Json } from '../core/wire.js';
import { OUTPUT_FORMAT_VERSION } from '../render/plan-schema.js';
import type { FilePull, PullResult } from './result.js';

const json: z.ZodType<Json> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]),
);
const targets = z.array(z.string()).describe('the targets whose manifests declare the document');

const edit = z.object({
  address: z.string(),
  line: z.number().int().describe('1-based line of the field in the file before the edit (of its map or list for an added entry or item)'),
  path: z.string().describe('spec.tiles[0].x'),
  op: z.enum(['set', 'add', 'remove', 'insert']),
  before: json.optional().describe("the manifest's value as it reads (templates resolved); absent for an added entry or item"),
  after: json.optional().describe('the live value; absent for a removed one'),
});

const fileReport = z.object({
  file: z.string(),
  status: z
    .enum(['changed', 'new', 'deleted', 'conflicted'])
    .describe('conflicted: left as it is (a conflict in it); deleted: its last document was removed'),
  edits: z.array(edit),
  removed: z
    .array(z.object({ address: z.string(), line: z.number().int(), targets }))
    .describe('documents of objects deleted on the service (--prune)'),
  created: z
    .array(
      z.object({
        target: z.string(),
        address: z.string(),
        id: z.string(),
        adoption: z.union([
          z.object({ by: z.literal('plan') }),
          z.object({ by: z.literal('import'), command: z.string(), reason: z.enum(['explicit', 'shared-key']) }),
        ]),
        variables: z.array(z.string()).describe('variables its ${env:} placeholders name'),
      }),
    )
    .describe('new manifests of objects made on the service (--include-unmanaged)'),
});

const conflict = z.object({
  address: z.string(),
  file: z.string(),
  line: z.number().int(),
  path: z.string(),
  reason: z.enum(['interpolated', 'sensitive', 'anchor', 'targets-differ', 'manifest-changed', 'unresolved', 'not-editable']),
  message: z.string().describe('what to do, in a sentence'),
  manifest: json.optional(),
  written: z.string().optional().describe("the manifest's text when it is a template"),
  live: json.optional(),
  targets,
});

export const pullReportSchema = z.object({
  format_version: z.string().describe("obsync's output format version (the plan's obsync_format_version)"),
  check: z.boolean().describe('--check: nothing was written'),
  changes: z.boolean().describe('a file was (or, with --check, would be) written'),
  summary: z.object({ files: z.number().int(), edits: z.number().int(), conflicts: z.number().int(), errors: z.number().int() }),
  files: z.array(fileReport),
  conflicts: z.array(conflict),
  deleted_on_service: z
    .array(z.object({ address: z.string(), file: z.string(), line: z.number().int(), targets }))
    .describe('owned objects deleted on the service whose manifests stay (no --prune)'),
  errors: z.array(
    z.object({
      target: z.string(),
      severity: z.enum(['error', 'warning']),
      message: z.string(),
      code: z.string(),
      file: z.string().optional(),
      line: z.number().int().optional(),
    }),
  ),
});

export type PullReport = z.infer<typeof pullReportSchema>;

/** `at`: a path as shown (relative to the working directory). */
export function pullReport(result: PullResult, options: { check: boolean; at: (file: string) => string }): PullReport {
  const { at } = options;
  const files = result.files.filter((f) => f.conflicted || f.before !== f.after);
  const report: PullReport = {
    format_version: OUTPUT_FORMAT_VERSION,
    check: options.check,
    changes: files.some((f) => !f.conflicted),
    summary: {
      files: files.filter((f) => !f.conflicted).length,
      edits: files.reduce((n, f) => n + (f.conflicted ? 0 : f.edits.length), 0),
      conflicts: result.conflicts.length,
      errors: result.errors.length,
    },
    files: files.map((f) => ({
      file: at(f.file),
      status: fileStatus(f),
      edits: f.edits.map((e) => ({
        address: e.address,
        line: e.line,
        path: e.path,
        op: e.op,
        ...(e.before === undefined ? {} : { before: e.before }),
        ...(e.after === undefined ? {} : { after: e.after }),
      })),
      removed: f.removed.map((r) => ({ address: r.address, line: r.line, targets: r.targets })),
      created: f.created.map((c) => ({ target: c.target, address: c.address, id: c.id, adoption: c.adoption, variables: c.variables })),
    })),
    conflicts: result.conflicts.map((c) => ({ ...c, file: at(c.file) })),
    deleted_on_service: result.deletedOnService.map((d) => ({ ...d, file: at(d.file) })),
    errors: result.errors.map((e) => ({
      target: e.target,
      severity: e.severity,
      message: e.message,
      code: e.code,
      ...(e.file === undefined ? {} : { file: at(e.file) }),
      ...(e.line === undefined ? {} : { line: e.line }),
    })),
  };
  return scrubDeep(report);
}

function fileStatus(f: FilePull): PullReport['files'][number]['status'] {
  if (f.conflicted) return 'conflicted';
  if (f.before === null) return 'new';
  if (f.after === null) return 'deleted';
  return 'changed';
}
