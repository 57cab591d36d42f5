/**
 * Where obsync keeps its state (DESIGN §4): the `file` backend (a directory, the default) or
 * `postgres` (a schema in an existing database, for CI runners and daemon replicas). Both keep
 * the same things: per-target inventories with their pending creates, the HMAC key of the
 * secret fingerprints, backups of deleted objects, and a writer lease per target.
 */
import type { InventoryBackup, InventoryEntry, InventoryStore } from '../core/inventory.js';

/**
 * The right to write one target. Renewed in the background while held; `lost` is aborted when
 * it could not be renewed in time or another holder took it over, and writes are refused after.
 */
export interface WriterLease {
  readonly target: string;
  /** Fencing token: new for every acquisition; writes carry it and are refused once it is stale. */
  readonly token: string;
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/** One attempt at a lease: granted, or held by someone else (who, and when to look again). */
export type LeaseAttempt = { lease: WriterLease } | { heldBy: string; holderCommand?: string | undefined; retryInMs: number };

export type InventoryAccess =
  /** plan, validate, state list: no lease, writes refused. */
  | { mode: 'read' }
  /** apply, state rm: take the lease (or fail with a LockError naming the holder). */
  | { mode: 'write'; command: string }
  /** The daemon: writes go under whatever lease the elector holds at the time (none on standby). */
  | { mode: 'elected'; lease: () => WriterLease | null };

/** An inventory entry with the time obsync first recorded it. */
export interface StateRecord {
  target: string;
  entry: InventoryEntry;
  since: string;
}

export interface LeaseTiming {
  /** How long a lease lives without renewal: a dead holder is replaced after at most this. */
  leaseMs: number;
  /** How often the holder renews it (a third of the lease by default). */
  renewMs: number;
}

export interface StateBackend {
  readonly kind: 'file' | 'postgres';
  /** Where the state lives, safe to print (a database URL without its password). */
  readonly location: string;
  readonly timing: LeaseTiming;
  openInventory(target: string, access: InventoryAccess): Promise<InventoryStore>;
  /** Takes the target's writer lease if nobody live holds it (the elector's step). */
  tryLease(target: string, command: string): Promise<LeaseAttempt>;
  /** Targets that have state, sorted. */
  targets(): Promise<string[]>;
  records(target: string): Promise<StateRecord[]>;
  backups(target: string): Promise<InventoryBackup[]>;
  /** The fingerprint key, or null before the first write created one. */
  fingerprintKey(): Promise<Buffer | null>;
  /** `state migrate`: sets the key (the destination must hold no entries). */
  setFingerprintKey(key: Buffer): Promise<void>;
  /** `state migrate`: fills an empty target under its lease. */
  importTarget(lease: WriterLease, records: readonly StateRecord[], backups: readonly InventoryBackup[]): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_LEASE_MS = 30_000;

export function leaseTiming(leaseSeconds: number | undefined): LeaseTiming {
  const leaseMs = Math.round((leaseSeconds ?? DEFAULT_LEASE_MS / 1000) * 1000);
  return { leaseMs, renewMs: Math.max(100, Math.floor(leaseMs / 3)) };
}
