/**
 * Ownership (DESIGN §4): what obsync created or adopted on one target. Prune only ever deletes
 * entries of this record; losing it only disables prune until objects are adopted again.
 */
import { pushTo } from './collections.js';
import { ObsyncError } from './errors.js';
import type { WriteFence } from './fence.js';
import { deepFreeze } from './freeze.js';
import { StringTable } from './intern.js';
import { copyJson } from './json.js';
import type { Address, Kind } from './plan.js';
import type { Json } from './wire.js';

export interface NonConvergentField {
  path: string;
  /** The desired value the service did not keep; the path is ignored while it stays the same. */
  desired: Json;
}

export interface InventoryEntry {
  kind: Kind;
  name: string;
  /** Server id; null while a create is in flight (a crash leaves it pending, resolved next run). */
  id: string | null;
  status: 'pending' | 'owned';
  /** Natural key at the time of writing (used to resolve a pending create). */
  naturalKey: string;
  /**
   * Pending creates: ids that already had this natural key in the live state the create was sent
   * after. They existed before it, so the create did not make them: never resolved to.
   */
  preexisting?: string[];
  labels?: Record<string, string>;
  /** Hash of the desired spec last applied: tells `spec-changed` from `drifted`. */
  specHash?: string;
  /** Dashboards: tile key → tile id. */
  tiles?: Record<string, string>;
  /** Write-only values last sent, as HMAC fingerprints (path → fingerprint). */
  secrets?: Record<string, string>;
  nonConvergent?: NonConvergentField[];
  /**
   * The manifest file that declared the object when last planned, relative to the project: a file that declares nothing any more is named
   * with what it declared.
   */
  source?: string;
  updatedAt: string;
}

/**
 * A row of the state obsync could not take as what it should be (not readable as one, or a second
 * owner of one object): left out of what the state gives, and named wherever it is read.
 */
export interface SkippedRow {
  /** Where it lives: a table of the PostgreSQL state (`entries`, `replicas`, …) or a file. */
  table: string;
  /** Its key there: an address, a replica id, a target. */
  key: string;
  reason: string;
  /** How to repair it. */
  hint?: string;
}

/** The small documents a target keeps beside its entries (the daemon's drift history): read by anyone, written under the lease. */
export type NoteName = 'drift-history';

export interface InventoryStore {
  readonly target: string;
  /** Every entry. Entries are frozen: callers build new ones and `put` them. */
  entries(): InventoryEntry[];
  /**
   * Rows of this target's inventory left out of `entries()`, keyed by the address they name: the
   * planner plans nothing at those addresses and prune is off until they are repaired or forgotten.
   */
  skipped(): readonly SkippedRow[];
  get(address: Address): InventoryEntry | undefined;
  /** Records the entry durably before resolving (a crash right after keeps it). */
  put(entry: InventoryEntry): Promise<void>;
  remove(address: Address): Promise<void>;
  /**
   * Records a rename in one durable write: the entry of `from` (id, tiles, hashes, fingerprints)
   * becomes the entry of `to`, and `from` has none any more. Refused (nothing written) unless
   * `from` has an entry, `to` has none and both are of one kind (`moveRefusal`). Returns the
   * entry as now stored (`updatedAt` is the time of the move).
   */
  move(from: Address, to: Address, updatedAt: string): Promise<InventoryEntry>;
  /** Keyed fingerprint of a secret value; the key never leaves the state directory. */
  fingerprint(value: string): string;
  /** Compacts pending writes into the main file (atomic). */
  flush(): Promise<void>;
  /** Flushes and releases the writer lock. */
  close(): Promise<void>;
  /**
   * Keeps a deleted object's last live form in the state backend (file: under the state
   * directory; postgres: a table) and returns where, for the apply report.
   */
  saveBackup(backup: InventoryBackup): Promise<string>;
  /** A note of this target as last written: null when there is none or it is not readable as JSON (parse it where it is used). */
  readNote(name: NoteName): Promise<unknown>;
  /** Replaces a note, under the writer lease: refused without it, like every write. */
  writeNote(name: NoteName, value: Json): Promise<void>;
  /** Re-reads the entries when another writer may have changed them (a daemon before each run). */
  refresh(): Promise<void>;
  /**
   * The fence of this run's service writes: passes only while the writer lease the entries were
   * read under is held (not lost, not replaced, within its local deadline). A read-only inventory
   * has no lease: its fence refuses every write.
   */
  writeFence(): WriteFence;
}

/** The kinds and statuses entries name, one copy of each for the process (a closed set: stores validate both). */
const ENTRY_WORDS = new StringTable();
/** The manifest files entries name: a few hundred files for 20,000 entries, one copy of each. */
const SOURCE_FILES = new StringTable();

/**
 * The frozen entry a store keeps: a copy (the caller may go on changing its own) that shares the
 * caller's strings, with its kind and status the process's one copy of each. structuredClone
 * copied every string: a daemon's store of 20,000 entries held 20,000 copies of "owned".
 */
export function keptEntry(entry: InventoryEntry): InventoryEntry {
  const copy = copyJson(entry);
  copy.kind = ENTRY_WORDS.of(copy.kind) as Kind;
  copy.status = ENTRY_WORDS.of(copy.status) as InventoryEntry['status'];
  if (copy.source !== undefined) copy.source = SOURCE_FILES.of(copy.source);
  return deepFreeze(copy);
}

export function entryAddress(entry: Pick<InventoryEntry, 'kind' | 'name'>): Address {
  return `${entry.kind}/${entry.name}`;
}

/** A deleted object's last live form, kept by the state backend before the delete is sent. */
export interface InventoryBackup {
  target: string;
  address: Address;
  kind: Kind;
  name: string;
  /** Server id of the deleted object. */
  id: string;
  backedUpAt: string;
  object: unknown;
}

/**
 * Who may write a target (DESIGN §6): the holder of its writer lease. With several daemon
 * replicas each runs one elector per target; only the elected leader runs reconciles.
 */
export interface TargetLeadership {
  readonly target: string;
  /** Starts competing for the lease; `onChange` hears every gain and loss. */
  start(onChange: (leader: boolean) => void): void;
  isLeader(): boolean;
  /** Another holder was found (not merely "not decided yet"): the replica is ready as standby. */
  isStandby(): boolean;
  /** Aborted when the current leadership ends (lease lost or taken); undefined on standby. */
  readonly signal: AbortSignal | undefined;
  /** Who leads now, for readiness and logs (no secrets). */
  describe(): string;
  /** Stops competing and releases the lease when held. */
  stop(): Promise<void>;
  /** Where replicas share targets: releases the lease to the replica the target is now assigned to (after the run ended). */
  handOver?(): Promise<void>;
  /** Where replicas share targets: the target is now assigned to this replica, compete at once. */
  poke?(): void;
}

/**
 * Why a rename cannot be recorded in a target's inventory, or null: the same rules for every
 * backend, `obsync state mv` and the applier (which records the moves a plan declares).
 */
export function moveRefusal(store: Pick<InventoryStore, 'get' | 'target'>, from: Address, to: Address): ObsyncError | null {
  const kindOf = (a: Address) => a.slice(0, a.indexOf('/'));
  if (from === to) return new ObsyncError('STATE_MOVE', `${from} and ${to} are the same address: nothing to move`);
  if (kindOf(from) !== kindOf(to))
    return new ObsyncError('STATE_MOVE', `cannot move ${from} to ${to}: a rename keeps the kind (${kindOf(from)} is not ${kindOf(to)})`, {
      hint: 'an object of another kind is another object: declare the new one and let prune delete the old one',
    });
  if (!store.get(from))
    return new ObsyncError('STATE_MOVE', `${from} is not in the state of target '${store.target}': nothing to move`, {
      hint: '`obsync state list` shows what obsync owns',
    });
  const occupied = store.get(to);
  if (occupied)
    return new ObsyncError(
      'STATE_MOVE',
      `${to} is already in the state of target '${store.target}' (id ${occupied.id ?? 'in flight'}): moving ${from} there would ` +
        `lose track of one of the two objects`,
      { hint: `forget it first with \`obsync state rm ${to}\` (the object itself stays), or move ${from} to another name` },
    );
  return null;
}

/** The entry of `from`, renamed to `to` (what every backend stores for a move). */
export function movedEntry(entry: InventoryEntry, to: Address, updatedAt: string): InventoryEntry {
  return { ...entry, name: to.slice(to.indexOf('/') + 1), updatedAt };
}

/**
 * One object, one owner (issue 53): who owns each object (kind and id) of one inventory. Every
 * backend refuses a write that would record a second owner, and leaves out both owners of an
 * object it finds owned twice (an object would flip between two manifests).
 */
export class Owners {
  readonly #by = new Map<string, Address>();

  constructor(entries: Iterable<InventoryEntry> = []) {
    for (const e of entries) this.set(e);
  }

  /** Why `entry` cannot be recorded in `target`: another address owns its object. */
  refusal(target: string, entry: InventoryEntry): ObsyncError | null {
    if (entry.id === null) return null;
    const owner = this.#by.get(ownerKey(entry.kind, entry.id));
    const address = entryAddress(entry);
    if (owner === undefined || owner === address) return null;
    return new ObsyncError(
      'STATE_OWNER',
      `${address} cannot be recorded with id ${entry.id} in the state of target '${target}': ${owner} owns that object already`,
      {
        hint:
          `one object has one address: to rename it, \`obsync state mv ${owner} ${address}\`; to stop managing it as ${owner}, ` +
          `\`obsync state rm ${owner}\``,
      },
    );
  }

  set(entry: InventoryEntry): void {
    if (entry.id !== null) this.#by.set(ownerKey(entry.kind, entry.id), entryAddress(entry));
  }

  delete(entry: InventoryEntry | undefined): void {
    if (entry?.id != null && this.#by.get(ownerKey(entry.kind, entry.id)) === entryAddress(entry))
      this.#by.delete(ownerKey(entry.kind, entry.id));
  }
}

function ownerKey(kind: Kind, id: string): string {
  return `${kind}\u0000${id}`;
}

/** The entries that alone own their object, and every owner of an object owned twice as a skipped row of `table`. */
export function soleOwners(entries: readonly InventoryEntry[], table: string): { kept: InventoryEntry[]; skipped: SkippedRow[] } {
  const owners = new Map<string, InventoryEntry[]>();
  for (const e of entries) if (e.id !== null) pushTo(owners, ownerKey(e.kind, e.id), e);
  const doubled = new Set([...owners.values()].filter((list) => list.length > 1).flat());
  const skipped = [...doubled].map((e) => {
    const others = (owners.get(ownerKey(e.kind, e.id ?? '')) ?? []).filter((o) => o !== e).map(entryAddress);
    return {
      table,
      key: entryAddress(e),
      reason: `it owns ${e.kind} ${e.id}, which ${others.join(' and ')} also own${others.length > 1 ? '' : 's'}: one object has one owner`,
      hint:
        `keep the address the manifests declare for that object and forget the other: \`obsync state rm ` +
        `${others[0] ?? entryAddress(e)}\` (or \`obsync state rm ${entryAddress(e)}\`)`,
    };
  });
  return { kept: entries.filter((e) => !doubled.has(e)), skipped };
}

/** One sentence naming a skipped row, why, and how to repair it (the state commands' warnings, the plan's errors). */
export function skippedRowText(row: SkippedRow): string {
  return `the state row ${row.key} (${row.table}) cannot be taken and is left out: ${row.reason}${row.hint ? `; ${row.hint}` : ''}`;
}
