/**
 * What `obsync pull` found and would write (src/writeback/pull.ts computes it; nothing is written
 * there): per file its new text and the field edits with their lines, the conflicts it will not
 * decide (file:line, both values, masked where sensitive), the manifests of objects made on the
 * service, and the documents of objects deleted there. The CLI writes it; the daemon's write-back
 * commits it.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { Address } from '../core/plan.js';
import type { Json } from '../core/wire.js';

export type EditKind = 'set' | 'add' | 'remove' | 'insert';

/** One field changed in a manifest. Never a sensitive one: those are conflicts. */
export interface FieldEdit {
  address: Address;
  file: string;
  /** 1-based line of the field (of its map or list, for an added entry or item) in the file before the edit. */
  line: number;
  /** `spec.tiles[0].x`. */
  path: string;
  op: EditKind;
  /** The manifest's value (as it reads, templates resolved); absent for an added entry or item. */
  before?: Json;
  /** The live value; absent for a removed one. */
  after?: Json;
}

export type ConflictReason =
  /** The manifest's value comes from `${env:}`, `${file:}` or `${var:}`: never overwritten with a literal. */
  | 'interpolated'
  /** A sensitive field differs: its value is never written (nor shown). */
  | 'sensitive'
  /** The value is shared through a YAML anchor (or is an alias): editing it would change the other places too. */
  | 'anchor'
  /** The manifest is shared by several targets whose live values differ. */
  | 'targets-differ'
  /** The manifest was edited since the last apply: pulling would overwrite that edit. */
  | 'manifest-changed'
  /** A difference pull cannot express in the manifest (a plan would still show it). */
  | 'unresolved'
  /** The file could not be edited safely (it changed since it was read, or an edit could not be placed). */
  | 'not-editable';

export interface PullConflict {
  address: Address;
  file: string;
  line: number;
  /** `spec.threshold` (a plan's path for `unresolved`). */
  path: string;
  reason: ConflictReason;
  /** What to do, in a sentence. */
  message: string;
  /** The manifest's value (`(sensitive)` when sensitive). */
  manifest?: Json;
  /** The manifest's text when it is a template (`${var:threshold}`). */
  written?: string;
  /** The live value (`(sensitive)` when sensitive); per target when targets differ. */
  live?: Json;
  targets: string[];
}

/** An object made on the service, written as a new manifest where `obsync export` would put it. */
export interface NewManifest {
  target: string;
  address: Address;
  id: string;
  file: string;
  text: string;
  /**
   * How it becomes owned: the next plan adopts it by its natural key, or `obsync import` must (the target's adopt policy, or a shared key).
   */
  adoption: { by: 'plan' } | { by: 'import'; command: string; reason: 'explicit' | 'shared-key' };
  /** Variables its `${env:}` placeholders name (secrets are never written). */
  variables: string[];
}

/** A document of an object deleted on the service (removed from its file with --prune). */
export interface RemovedDocument {
  address: Address;
  file: string;
  line: number;
  targets: string[];
}

export interface FilePull {
  file: string;
  /** The text read; null for a new file. */
  before: string | null;
  /** The new text; null when the file is emptied (it is deleted). */
  after: string | null;
  edits: FieldEdit[];
  removed: RemovedDocument[];
  created: NewManifest[];
  /** Conflicts in this file: the CLI leaves it whole (all or nothing per file). */
  conflicted: boolean;
}

export interface PullResult {
  files: FilePull[];
  conflicts: PullConflict[];
  /** Objects deleted on the service whose manifests stay (no --prune). */
  deletedOnService: RemovedDocument[];
  /** What stopped a target's plan (unresolved references, a failed match): the pull of those objects did not happen. */
  errors: (Diagnostic & { target: string })[];
}

/** Whether anything would be written. */
export function pullChanges(result: PullResult): boolean {
  return result.files.some((f) => f.before !== f.after);
}
