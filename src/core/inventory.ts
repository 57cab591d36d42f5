/**
 * Ownership (DESIGN §4): what obsync created or adopted on one target. Prune only ever deletes
 * entries of this record; losing it only disables prune until objects are adopted again.
 */
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
  labels?: Record<string, string>;
  /** Hash of the desired spec last applied: tells `spec-changed` from `drifted`. */
  specHash?: string;
  /** Dashboards: tile key → tile id. */
  tiles?: Record<string, string>;
  /** Write-only values last sent, as HMAC fingerprints (path → fingerprint). */
  secrets?: Record<string, string>;
  nonConvergent?: NonConvergentField[];
  updatedAt: string;
}

export interface InventoryStore {
  readonly target: string;
  /** Every entry. Entries are frozen: callers build new ones and `put` them. */
  entries(): InventoryEntry[];
  get(address: Address): InventoryEntry | undefined;
  /** Records the entry durably before resolving (a crash right after keeps it). */
  put(entry: InventoryEntry): Promise<void>;
  remove(address: Address): Promise<void>;
  /** Keyed fingerprint of a secret value; the key never leaves the state directory. */
  fingerprint(value: string): string;
  /** Compacts pending writes into the main file (atomic). */
  flush(): Promise<void>;
  /** Flushes and releases the writer lock. */
  close(): Promise<void>;
}

export function entryAddress(entry: Pick<InventoryEntry, 'kind' | 'name'>): Address {
  return `${entry.kind}/${entry.name}`;
}
