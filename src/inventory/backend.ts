/**
 * Where obsync keeps its state (DESIGN §4): the `file` backend (a directory, the default) or
 * `postgres` (a schema in an existing database, for CI runners and daemon replicas). Both keep
 * the same things: per-target inventories with their pending creates, the HMAC key of the
 * secret fingerprints, backups of deleted objects, and a writer lease per target.
 */
import type { WriteFence } from '../core/fence.js';
import type { InventoryBackup, InventoryEntry, InventoryStore, SkippedRow } from '../core/inventory.js';

/**
 * The right to write one target. Renewed in the background while held; `lost` is aborted when
 * it could not be renewed in time or another holder took it over, and writes are refused after.
 * `check()` (the write fence) passes only while the lease is held as this process sees it: not
 * lost, and before its local deadline — acquired or last renewed at T on the monotonic clock,
 * valid until T + lease − margin — so a process paused past its lease writes nothing on resuming.
 */
export interface WriterLease extends WriteFence {
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

/** A target's entries as read, and the rows left out of them (the inventory's `skipped()`). */
export interface StateRecords {
  records: StateRecord[];
  skipped: SkippedRow[];
}

export interface StateBackups {
  backups: InventoryBackup[];
  skipped: SkippedRow[];
}

export interface LeaseTiming {
  /** How long a lease lives without renewal: a dead holder is replaced after at most this. */
  leaseMs: number;
  /** How often the holder renews it (a third of the lease by default). */
  renewMs: number;
  /**
   * How long before the lease's end this process stops writing (default: a fifth of the lease):
   * covers the time between the check and the write reaching the service, and clock drift.
   */
  marginMs?: number;
}

/** The lease when this process may still write under it (not lost, within its local deadline), else null. */
export function heldLease(lease: WriterLease | null): WriterLease | null {
  if (!lease) return null;
  try {
    lease.check();
    return lease;
  } catch {
    return null;
  }
}

export function leaseMarginMs(timing: LeaseTiming): number {
  return timing.marginMs ?? Math.round(timing.leaseMs / 5);
}

/** What a replica of `obsync run` tells the others at each heartbeat (PostgreSQL state only). */
export interface ReplicaHeartbeat {
  /** host/pid/random: new for every process. */
  id: string;
  host: string;
  pid: number;
  version: string;
  leaseMs: number;
  /** The targets its config declares (that it runs), sorted. */
  targets: readonly string[];
  /** The targets it holds the lease of now, sorted. */
  leads: readonly string[];
  /** What it found different in the other live replicas (target lists, versions, lease settings). */
  disagreements: readonly string[];
  /** Its status server, when it listens. */
  listen?: string | undefined;
}

export interface ReplicaRecord extends ReplicaHeartbeat {
  startedAt: string;
  heartbeatAt: string;
  expiresAt: string;
  /** How long ago the last heartbeat was, in the database's clock. */
  heartbeatAgeMs: number;
  /** Its last heartbeat is less than one lease ago (./liveness.ts). */
  live: boolean;
}

/** The registry as read: its replicas, and the rows left out (not readable, or claiming a lease no obsync grants). */
export interface RegistryRead {
  replicas: ReplicaRecord[];
  skipped: SkippedRow[];
}

export interface LeasesRead {
  leases: HeldLease[];
  skipped: SkippedRow[];
}

/** The replicas sharing a state: registered with a heartbeat lease; one whose lease expired is dead. */
export interface ReplicaRegistry {
  /** Registers or renews this replica for one lease; returns the live replicas (itself included), sorted by id. */
  heartbeat(me: ReplicaHeartbeat): Promise<RegistryRead>;
  /** Unregisters at once (SIGTERM): the others re-divide the targets at their next heartbeat. */
  leave(id: string): Promise<void>;
  /** Every registered replica, live or recently dead, sorted by id. */
  list(): Promise<RegistryRead>;
  /** The writer leases held now (not expired), sorted by target: who really leads what. */
  leases(): Promise<LeasesRead>;
}

export interface HeldLease {
  target: string;
  host: string;
  pid: number;
  command: string;
  expiresAt: string;
}

export interface StateBackend {
  readonly kind: 'file' | 'postgres';
  /** The replica registry where replicas can share targets (PostgreSQL); the file backend has none. */
  readonly replicas?: ReplicaRegistry | undefined;
  /** Where the state lives, safe to print (a database URL without its password). */
  readonly location: string;
  /** What the user should know about the state (a PostgreSQL state not set up yet, read as empty): printed once. */
  readonly notice?: string | undefined;
  readonly timing: LeaseTiming;
  openInventory(target: string, access: InventoryAccess): Promise<InventoryStore>;
  /** Takes the target's writer lease if nobody live holds it (the elector's step). */
  tryLease(target: string, command: string): Promise<LeaseAttempt>;
  /** Targets that have state, sorted. */
  targets(): Promise<string[]>;
  records(target: string): Promise<StateRecords>;
  backups(target: string): Promise<StateBackups>;
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
