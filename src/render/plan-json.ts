/**
 * The saved-plan / `--output json` document: the Plan plus where it came from. Versioned
 * (`formatVersion`): `apply plan.json` parses it back with the schema below and refuses a plan
 * of another version with a clear message.
 */
import * as z from 'zod';
import { ObsyncError } from '../core/errors.js';
import { PLAN_FORMAT_VERSION, type Address, type AnyKind, type Plan } from '../core/plan.js';
import { KINDS, REGISTRY } from '../kinds/registry.js';

export interface PlanDocument extends Plan {
  generatedAt: string;
  obsyncVersion: string;
  /** Manifest paths the plan was made from (absolute); apply re-reads them for sensitive values. */
  manifests: string[];
  /** The obsync.yaml used, when there was one. */
  config?: string;
}

const json = z.json();
const object = z.record(z.string(), json);
const kind = z.enum(KINDS);
const anyKind = z.enum(REGISTRY.map((d) => d.kind) as [AnyKind, ...AnyKind[]]);
const address = z.string().refine((a) => KINDS.some((k) => a.startsWith(`${k}/`) && a.length > k.length + 1), { error: 'not an address like Dashboard/checkout' }) as unknown as z.ZodType<Address>;
const change = z.object({ path: z.string(), before: json.optional(), after: json.optional(), sensitive: z.boolean().optional() });
const cascadeItem = z.object({ kind: anyKind, id: z.string(), name: z.string().nullable(), address: address.optional(), owned: z.boolean(), declared: z.boolean(), object });
const step = z.object({
  address,
  kind,
  name: z.string(),
  action: z.enum(['create', 'update', 'delete', 'noop']),
  reason: z.enum(['missing', 'drifted', 'spec-changed', 'not-declared', 'unchanged']),
  id: z.string().optional(),
  adopt: z.boolean().optional(),
  changes: z.array(change),
  payload: object.optional(),
  calls: z.array(z.object({ call: z.string(), body: object })).optional(),
  settle: z.boolean().optional(),
  liveVersion: z.string().optional(),
  dependsOn: z.array(address),
  nonConvergent: z.array(z.string()).optional(),
  notes: z.array(z.string()).optional(),
  record: z
    .object({
      naturalKey: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
      specHash: z.string().optional(),
      secrets: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  parts: z.array(z.object({ key: z.string(), id: z.string().optional() })).optional(),
  expected: z.object({ value: json, names: z.array(z.object({ kind: anyKind, id: z.string(), token: json })) }).optional(),
  cascade: z.array(cascadeItem).optional(),
  backup: object.optional(),
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
  prune: z.object({
    requested: z.boolean(),
    cascade: z.boolean(),
    candidates: z.array(address),
    refused: z.array(z.string()),
    blocked: z.array(z.object({ address, reason: z.string() })),
  }),
  forget: z.array(address),
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
  const version = typeof raw === 'object' && raw !== null ? (raw as { formatVersion?: unknown }).formatVersion : undefined;
  if (version !== PLAN_FORMAT_VERSION) {
    const made = typeof version === 'number' ? `plan format version ${version}` : 'no plan format version';
    throw new ObsyncError('PLAN_VERSION', `${file} has ${made}; this obsync applies version ${PLAN_FORMAT_VERSION} plans only`, {
      hint: 'make the plan again with this obsync: `obsync plan --out FILE`',
    });
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
