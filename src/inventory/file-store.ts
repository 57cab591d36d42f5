/**
 * The `file` inventory backend: `<dir>/<target>.json` holds the last compacted state, and
 * `<dir>/<target>.journal` the changes since, one JSON line each, appended before a write is
 * sent (so a killed process leaves a record). Compaction writes a temp file and renames it
 * (atomic), then truncates the journal. Writes need the target's writer lease (lock.ts).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as z from 'zod';
import { LeaseLostError, ObsyncError } from '../core/errors.js';
import type { WriteFence } from '../core/fence.js';
import { deepFreeze } from '../core/freeze.js';
import {
  entryAddress,
  keptEntry,
  moveRefusal,
  movedEntry,
  Owners,
  type InventoryBackup,
  type InventoryEntry,
  type InventoryStore,
  type NoteName,
  type SkippedRow,
} from '../core/inventory.js';
import type { Address } from '../core/plan.js';
import type { Json } from '../core/wire.js';
import { heldLease, leaseTiming, type InventoryAccess, type LeaseTiming, type WriterLease } from './backend.js';
import { hmacFingerprint, loadOrCreateFileKey } from './fingerprint.js';
import { writeFileBackup } from './file-backups.js';
import { readFileNote, writeFileNote } from './file-notes.js';
import { acquireFileLease } from './lock.js';
import type { journalLine } from './file-state.js';
import { loadTarget, ownedOnce, applyLine, truncateJournal } from './file-state.js';

export interface FileInventoryOptions {
  dir: string;
  target: string;
  /** Take the writer lease (apply, run); plan and validate read without it. */
  lock: boolean;
  command?: string;
  timing?: LeaseTiming;
}

/** Opens one target's inventory in a state directory (the file backend's `openInventory`). */
export function openFileInventory(opts: FileInventoryOptions): Promise<InventoryStore> {
  const access: InventoryAccess = opts.lock ? { mode: 'write', command: opts.command ?? 'apply' } : { mode: 'read' };
  return openFileTarget(opts.dir, opts.target, access, opts.timing ?? leaseTiming(undefined));
}

export async function openFileTarget(dir: string, target: string, access: InventoryAccess, timing: LeaseTiming): Promise<InventoryStore> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const own = access.mode === 'write' ? await acquireFileLease(join(dir, `${target}.lock`), target, access.command, timing) : null;
  try {
    const key = await loadOrCreateFileKey(dir);
    const lease = own ? () => own : access.mode === 'elected' ? access.lease : () => null;
    const inventory = new FileInventory(dir, target, key, lease, own);
    await inventory.refresh();
    return inventory;
  } catch (err) {
    await own?.release();
    throw err;
  }
}

class FileInventory implements InventoryStore {
  #entries = new Map<Address, InventoryEntry>();
  #since = new Map<Address, string>();
  #owners = new Owners();
  /** Entries of objects owned twice: left out of `entries()`, but written back as they were until one is forgotten. */
  #doubled = new Map<Address, InventoryEntry>();
  #skipped: SkippedRow[] = [];
  /** The lease token the entries were read under: a write under another lease must re-read first. */
  #loadedUnder: string | null | undefined = undefined;
  readonly #journalPath: string;
  readonly #snapshotPath: string;
  #journalFd: number | null = null;
  /**
   * Lines appended to the journal, and how many of them the snapshot holds: a flush with nothing
   * new rewrites nothing (a daemon's run over an unchanged estate). -1: the state was (re-)read,
   * and its journal may hold lines of an earlier process.
   */
  #appended = 0;
  #compacted = -1;
  #closed = false;

  constructor(
    private readonly dir: string,
    readonly target: string,
    private readonly key: Buffer,
    private readonly lease: () => WriterLease | null,
    private readonly own: WriterLease | null,
  ) {
    this.#journalPath = join(dir, `${target}.journal`);
    this.#snapshotPath = join(dir, `${target}.json`);
  }

  entries(): InventoryEntry[] {
    return [...this.#entries.values()];
  }

  get(address: Address): InventoryEntry | undefined {
    return this.#entries.get(address);
  }

  skipped(): readonly SkippedRow[] {
    return this.#skipped;
  }

  put(entry: InventoryEntry): Promise<void> {
    const refusal = this.#owners.refusal(this.target, entry);
    if (refusal) return Promise.reject(refusal);
    this.#append({ op: 'put', entry });
    const address = entryAddress(entry);
    this.#owners.delete(this.#entries.get(address));
    this.#entries.set(address, keptEntry(entry));
    this.#owners.set(entry);
    this.#forgetDoubled(address);
    if (!this.#since.has(address)) this.#since.set(address, entry.updatedAt);
    return Promise.resolve();
  }

  remove(address: Address): Promise<void> {
    this.#append({ op: 'remove', address });
    this.#owners.delete(this.#entries.get(address) ?? this.#doubled.get(address));
    this.#entries.delete(address);
    this.#forgetDoubled(address);
    this.#since.delete(address);
    return Promise.resolve();
  }

  #forgetDoubled(address: Address): void {
    if (!this.#doubled.delete(address)) return;
    this.#skipped = this.#skipped.filter((r) => r.key !== address);
    // The other owner of that object still owns it (left out until the next read): no third may be recorded.
    this.#owners = new Owners([...this.#entries.values(), ...this.#doubled.values()]);
  }

  async move(from: Address, to: Address, updatedAt: string): Promise<InventoryEntry> {
    const entry = this.#entries.get(from);
    const refusal = moveRefusal(this, from, to);
    if (refusal || !entry) throw refusal ?? new Error(`no entry ${from}`);
    const moved = deepFreeze(movedEntry(entry, to, updatedAt));
    this.#append({ op: 'move', from, entry: moved });
    applyLine({ entries: this.#entries, since: this.#since }, { op: 'move', from, entry: moved });
    this.#owners.delete(entry);
    this.#owners.set(moved);
    return Promise.resolve(moved);
  }

  fingerprint(value: string): string {
    return hmacFingerprint(this.key, value);
  }

  async refresh(): Promise<void> {
    const lease = this.#usableLease();
    if (lease && lease.token === this.#loadedUnder) return;
    this.#closeJournal();
    const loaded = await loadTarget(this.dir, this.target, { repair: lease !== null });
    const once = ownedOnce(loaded, this.#snapshotPath);
    this.#entries = once.entries;
    this.#doubled = once.doubled;
    // Both owners of an object owned twice count: a write may not record a third.
    this.#owners = new Owners(loaded.entries.values());
    this.#skipped = once.skipped;
    this.#since = loaded.since;
    this.#loadedUnder = lease?.token ?? null;
    this.#compacted = -1;
  }

  async flush(): Promise<void> {
    if (!this.#writable() || this.#compacted === this.#appended) return;
    const upTo = this.#appended;
    const entries = [...this.#entries.values(), ...this.#doubled.values()].sort(byAddress);
    const data = {
      version: 1,
      target: this.target,
      entries,
      since: Object.fromEntries([...this.#since].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    const tmp = `${this.#snapshotPath}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(data, null, 1) + '\n', { mode: 0o600 });
    await rename(tmp, this.#snapshotPath);
    // Only lines the snapshot holds may go, checked and cut in one synchronous step: a line
    // appended while the snapshot was written stays (replaying it over the snapshot is harmless).
    if (this.#appended === upTo) {
      this.#closeJournal();
      truncateJournal(this.#journalPath);
    }
    this.#compacted = upTo;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.flush();
    } finally {
      this.#closeJournal();
      await this.own?.release();
    }
  }

  async saveBackup(backup: InventoryBackup): Promise<string> {
    this.#requireLease();
    return writeFileBackup(this.dir, backup);
  }

  readNote(name: NoteName): Promise<unknown> {
    return Promise.resolve(readFileNote(this.dir, this.target, name));
  }

  async writeNote(name: NoteName, value: Json): Promise<void> {
    this.#requireLease();
    await writeFileNote(this.dir, this.target, name, value);
  }

  #usableLease(): WriterLease | null {
    return heldLease(this.lease());
  }

  #writable(): boolean {
    const lease = this.#usableLease();
    return lease !== null && lease.token === this.#loadedUnder;
  }

  /** The write fence of this inventory's lease (also of the service writes of its run). */
  writeFence(): WriteFence {
    return { check: () => this.#requireLease() };
  }

  #requireLease(): void {
    const lease = this.lease();
    if (!lease)
      throw new ObsyncError(
        'INVENTORY_READONLY',
        `internal: the inventory of target '${this.target}' was opened read-only and cannot be written`,
      );
    lease.check();
    if (lease.token !== this.#loadedUnder)
      throw new LeaseLostError(
        `the writer lease on target '${this.target}' changed hands since the inventory was read`,
        'the next run re-reads it and starts over',
      );
  }

  /** Synchronous append: the line is in the kernel before the write it announces is sent. */
  #append(line: z.infer<typeof journalLine>): void {
    this.#requireLease();
    this.#journalFd ??= openSync(this.#journalPath, 'a', 0o600);
    this.#appended += 1;
    writeSync(this.#journalFd, JSON.stringify(line) + '\n');
  }

  #closeJournal(): void {
    if (this.#journalFd !== null) closeSync(this.#journalFd);
    this.#journalFd = null;
  }
}

function byAddress(a: InventoryEntry, b: InventoryEntry): number {
  return entryAddress(a) < entryAddress(b) ? -1 : entryAddress(a) > entryAddress(b) ? 1 : 0;
}
