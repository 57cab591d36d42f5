/**
 * The saved-plan / `--output json` document: the Plan plus where it came from. Stable and
 * versioned (`formatVersion`); `apply plan.json` parses it back with the schema below.
 */
import * as z from 'zod';
import { ObsyncError } from '../core/errors.js';
import { PLAN_FORMAT_VERSION, type Plan } from '../core/plan.js';

export interface PlanDocument extends Plan {
  generatedAt: string;
  obsyncVersion: string;
  /** Manifest paths the plan was made from (absolute); apply re-reads them for sensitive values. */
  manifests: string[];
  /** The obsync.yaml used, when there was one. */
  config?: string;
}

const json = z.json();
const change = z.object({ path: z.string(), before: json.optional(), after: json.optional(), sensitive: z.boolean().optional() });
const address = z.string().regex(/^(Dashboard|Alert|Pipe)\/.+$/) as unknown as z.ZodType<`${'Dashboard' | 'Alert' | 'Pipe'}/${string}`>;
const step = z.object({
  address,
  kind: z.enum(['Dashboard', 'Alert', 'Pipe']),
  name: z.string(),
  action: z.enum(['create', 'update', 'delete', 'noop']),
  reason: z.enum(['missing', 'drifted', 'spec-changed', 'not-declared', 'unchanged']),
  id: z.string().optional(),
  adopt: z.boolean().optional(),
  changes: z.array(change),
  payload: z.record(z.string(), json).optional(),
  pipe: z
    .object({
      patch: z.record(z.string(), json).optional(),
      settings: z.record(z.string(), json).optional(),
      scaling: z.record(z.string(), json).optional(),
      state: z.enum(['start', 'stop']).optional(),
    })
    .optional(),
  liveVersion: z.string().optional(),
  dependsOn: z.array(address),
  nonConvergent: z.array(z.string()).optional(),
  notes: z.array(z.string()).optional(),
});
const diagnostic = z.object({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  file: z.string().optional(),
  line: z.number().optional(),
  col: z.number().optional(),
  path: z.string().optional(),
  address: z.string().optional(),
});

export const planDocumentSchema = z.object({
  formatVersion: z.literal(PLAN_FORMAT_VERSION),
  target: z.string(),
  variant: z.string(),
  steps: z.array(step),
  summary: z.object({ create: z.number(), update: z.number(), delete: z.number(), noop: z.number() }),
  prune: z.object({ requested: z.boolean(), candidates: z.array(address), refused: z.array(z.string()) }),
  diagnostics: z.array(diagnostic),
  errored: z.boolean(),
  generatedAt: z.string(),
  obsyncVersion: z.string(),
  manifests: z.array(z.string()),
  config: z.string().optional(),
});

export function renderPlanJson(doc: PlanDocument): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

export function parsePlanDocument(text: string, file: string): PlanDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ObsyncError('PLAN_FILE', `${file} is not a saved plan: invalid JSON`, { cause: err });
  }
  const parsed = planDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ObsyncError('PLAN_FILE', `${file} is not a saved plan of this obsync version: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}`, {
      hint: 'create it again with `obsync plan --out FILE`',
    });
  }
  return parsed.data;
}
