/**
 * What each target asks of the manifests (./pull.ts gathers it): per document, the edits that
 * bring it to the target's live object, the edits refused, or its removal. A document that
 * several targets read is changed only where they all ask the same (./merge.ts).
 */
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { Address, AdoptPolicy, Plan, PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import { managedDefinition } from '../kinds/registry.js';
import type { PlanContext } from '../planner/context.js';
import type { Edit } from './edits.js';
import type { LiveNames } from './live-manifest.js';
import { pullObject, type Refused } from './object-pull.js';
import type { YamlFile } from './yaml-file.js';
import { documentAt, documentOf, documentValue } from './yaml-file.js';

/** A document, by its file and the line it starts at (what a resource's source says). */
export function documentKey(file: string, line: number): string {
  return `${file}\u0000${line}`;
}

export interface DocumentAsk {
  target: string;
  address: Address;
  file: string;
  line: number;
  /** Its index among the file's documents. */
  index: number;
  edits: Edit[];
  shown: { edit: Edit; before: Json | undefined }[];
  refused: Refused[];
  /** The object was deleted on the service (asked only with --prune). */
  remove: boolean;
  /** The manifest changed since the last apply: nothing is pulled into it. */
  edited: boolean;
}

export interface TargetAsks {
  asks: DocumentAsk[];
  /** Owned objects deleted on the service whose documents stay (no --prune). */
  deleted: { address: Address; file: string; line: number }[];
  /** Documents that could not be found again in their files (changed since they were loaded). */
  lost: { address: Address; file: string; line: number }[];
}

export interface TargetPlan {
  target: string;
  adopt: AdoptPolicy;
  plan: Plan;
  context: PlanContext;
  names: LiveNames;
}

/** Every document the target's plan would have pull change. */
export function targetAsks(t: TargetPlan, file: (path: string) => YamlFile | undefined, prune: boolean): TargetAsks {
  const out: TargetAsks = { asks: [], deleted: [], lost: [] };
  const desired = new Map(t.context.input.desired.map((r) => [r.address, r]));
  const entries = t.context.moves?.entries ?? new Map(t.context.input.inventory.map((e) => [entryAddress(e), e]));
  for (const step of t.plan.steps) {
    const res = desired.get(step.address);
    const entry = entries.get(step.address);
    if (!res || !isOwned(entry)) continue;
    const deleted = step.action === 'create' && step.reason === 'missing';
    const drifted = step.action === 'update' && entry.id === step.id;
    if (!deleted && !drifted) continue;
    const where = { address: res.address, file: res.source.file, line: res.source.line };
    if (deleted && !prune) {
      out.deleted.push(where);
      continue;
    }
    const yaml = file(res.source.file);
    const index = yaml ? documentAt(yaml, res.source.line, res.kind, res.name) : undefined;
    if (!yaml || index === undefined) {
      out.lost.push(where);
      continue;
    }
    const ask: DocumentAsk = { target: t.target, ...where, index, edits: [], shown: [], refused: [], remove: deleted, edited: false };
    if (drifted && step.reason === 'spec-changed') ask.edited = true;
    else if (drifted) {
      const { edits, shown, refused } = objectAsk(t, step, res, entry, yaml, index);
      ask.edits = edits;
      ask.shown = shown;
      ask.refused = refused;
    }
    out.asks.push(ask);
  }
  return out;
}

function isOwned(entry: InventoryEntry | undefined): entry is InventoryEntry & { id: string } {
  return entry?.status === 'owned' && entry.id !== null;
}

function objectAsk(
  t: TargetPlan,
  step: PlanStep,
  res: DesiredResource,
  entry: InventoryEntry,
  yaml: YamlFile,
  index: number,
): Pick<DocumentAsk, 'edits' | 'shown' | 'refused'> {
  const def = managedDefinition(res.kind);
  const doc = documentOf(yaml, index);
  const written = doc ? documentValue(doc) : undefined;
  const live = def ? t.context.index(def)?.get(step.id ?? '') : undefined;
  if (!def || !doc || written === undefined || !live) return { edits: [], shown: [], refused: [{ path: [], reason: 'unresolved' }] };
  return pullObject({ ctx: t.context, def, res, entry, live, names: t.names, changes: step.changes, doc, written });
}
