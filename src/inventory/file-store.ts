/**
 * The `file` inventory backend: `<dir>/<target>.json` holds the last compacted state, and
 * `<dir>/<target>.journal` the changes since, one JSON line each, appended before a write is
 * sent (so a killed process leaves a record). Compaction writes a temp file and renames it
 * (atomic), then truncates the journal.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { ObsyncError } from '../core/errors.js';
import { deepFreeze } from '../core/freeze.js';
import { entryAddress, type InventoryEntry, type InventoryStore } from '../core/inventory.js';
import type { Address } from '../core/plan.js';
import { acquireLock, type HeldLock } from './lock.js';
import { inventoryEntrySchema } from './schema.js';

const snapshotSchema = z.object({ version: z.literal(1), target: z.string(), entries: z.array(inventoryEntrySchema) });
const journalLine = z.union([
  z.object({ op: z.literal('put'), entry: inventoryEntrySchema }),
  z.object({ op: z.literal('remove'), address: z.string() }),
]);

export interface FileInventoryOptions {
  dir: string;
  target: string;
  /** Take the writer lock (apply, run); plan and validate read without it. */
  lock: boolean;
  command?: string;
}

export async function openFileInventory(opts: FileInventoryOptions): Promise<InventoryStore> {
  await mkdir(opts.dir, { recursive: true, mode: 0o700 });
  const lock = opts.lock ? await acquireLock(join(opts.dir, `${opts.target}.lock`), opts.command ?? 'apply') : null;
  try {
    const key = await loadOrCreateKey(join(opts.dir, 'fingerprint.key'));
    const entries = await loadEntries(opts.dir, opts.target);
    return new FileInventory(opts.dir, opts.target, entries, key, lock);
  } catch (err) {
    await lock?.release();
    throw err;
  }
}

class FileInventory implements InventoryStore {
  readonly #entries: Map<Address, InventoryEntry>;
  readonly #journalPath: string;
  readonly #snapshotPath: string;
  #journalFd: number | null = null;
  #closed = false;

  constructor(
    dir: string,
    readonly target: string,
    entries: Map<Address, InventoryEntry>,
    private readonly key: Buffer,
    private readonly lock: HeldLock | null,
  ) {
    this.#entries = entries;
    this.#journalPath = join(dir, `${target}.journal`);
    this.#snapshotPath = join(dir, `${target}.json`);
  }

  entries(): InventoryEntry[] {
    return [...this.#entries.values()];
  }

  get(address: Address): InventoryEntry | undefined {
    return this.#entries.get(address);
  }

  put(entry: InventoryEntry): Promise<void> {
    this.#append({ op: 'put', entry });
    this.#entries.set(entryAddress(entry), deepFreeze(structuredClone(entry)));
    return Promise.resolve();
  }

  remove(address: Address): Promise<void> {
    this.#append({ op: 'remove', address });
    this.#entries.delete(address);
    return Promise.resolve();
  }

  fingerprint(value: string): string {
    return 'hmac-sha256:' + createHmac('sha256', this.key).update(value, 'utf8').digest('base64url');
  }

  async flush(): Promise<void> {
    if (!this.lock) return;
    const data = { version: 1, target: this.target, entries: [...this.#entries.values()].sort(byAddress) };
    const tmp = `${this.#snapshotPath}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(data, null, 1) + '\n', { mode: 0o600 });
    await rename(tmp, this.#snapshotPath);
    this.#closeJournal();
    await truncate(this.#journalPath, 0).catch(ignoreMissing);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.flush();
    } finally {
      this.#closeJournal();
      await this.lock?.release();
    }
  }

  /** Synchronous append: the line is in the kernel before the write it announces is sent. */
  #append(line: z.infer<typeof journalLine>): void {
    if (!this.lock) throw new ObsyncError('INVENTORY_READONLY', 'internal: inventory opened read-only cannot be written');
    this.#journalFd ??= openSync(this.#journalPath, 'a', 0o600);
    writeSync(this.#journalFd, JSON.stringify(line) + '\n');
  }

  #closeJournal(): void {
    if (this.#journalFd !== null) closeSync(this.#journalFd);
    this.#journalFd = null;
  }
}

async function loadEntries(dir: string, target: string): Promise<Map<Address, InventoryEntry>> {
  const entries = new Map<Address, InventoryEntry>();
  const snapshotPath = join(dir, `${target}.json`);
  const snapshot = await readFile(snapshotPath, 'utf8').catch(ignoreMissing);
  if (snapshot !== undefined) {
    const parsed = snapshotSchema.safeParse(JSON.parse(snapshot));
    if (!parsed.success) {
      throw new ObsyncError('INVENTORY_CORRUPT', `the inventory ${snapshotPath} is not readable: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
        hint: 'restore it from a backup, or move it away: obsync will adopt objects again by natural key (prune stays off until then)',
      });
    }
    for (const e of parsed.data.entries) entries.set(entryAddress(e), deepFreeze(e));
  }
  const journal = await readFile(join(dir, `${target}.journal`), 'utf8').catch(ignoreMissing);
  for (const raw of (journal ?? '').split('\n')) {
    if (raw.trim() === '') continue;
    const line = journalLine.safeParse(safeJson(raw));
    if (!line.success) continue; // a torn last line from a killed process
    if (line.data.op === 'put') entries.set(entryAddress(line.data.entry), deepFreeze(line.data.entry));
    else entries.delete(line.data.address as Address);
  }
  return entries;
}

async function loadOrCreateKey(path: string): Promise<Buffer> {
  const existing = await readFile(path).catch(ignoreMissing);
  if (existing && existing.length >= 32) return existing;
  const key = randomBytes(32);
  try {
    await writeFile(path, key, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFile(path);
    throw err;
  }
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

function ignoreMissing(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw err;
}

function byAddress(a: InventoryEntry, b: InventoryEntry): number {
  return entryAddress(a) < entryAddress(b) ? -1 : entryAddress(a) > entryAddress(b) ? 1 : 0;
}
