/**
 * Reads a target's file state: the compacted snapshot, then the journal's lines replayed over it; every
 * unreadable part is an error that names the file, except a torn last journal line (a killed process).
 */
import { truncateSync } from 'node:fs';
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { ObsyncError } from '../core/errors.js';
import { ownValue } from '../core/json.js';
import { entryAddress, keptEntry, soleOwners, type InventoryEntry, type SkippedRow } from '../core/inventory.js';
import type { Address } from '../core/plan.js';
import { inventoryEntrySchema } from './schema.js';
import { FileRefusal, MAX_STATE_FILE_BYTES, readRegularBytesIfPresent } from '../manifests/files.js';

export const snapshotSchema = z.object({
  version: z.literal(1),
  target: z.string(),
  entries: z.array(inventoryEntrySchema),
  /** When each entry was first recorded (address → ISO time); absent in older files. */
  since: z.record(z.string(), z.string()).optional(),
});

export const journalLine = z.union([
  z.object({ op: z.literal('put'), entry: inventoryEntrySchema }),
  z.object({ op: z.literal('remove'), address: z.string() }),
  // A rename in one line: a process killed between a put and a remove would leave two owners of one id.
  z.object({ op: z.literal('move'), from: z.string(), entry: inventoryEntrySchema }),
]);

export interface LoadedTarget {
  entries: Map<Address, InventoryEntry>;
  since: Map<Address, string>;
}

/**
 * The snapshot plus the journal. A file that cannot be read is an error naming it (never an
 * empty inventory: that would disown everything); only a torn last journal line, left by a
 * process killed mid-write, is skipped, and cut off when `repair` (a writer appends after it).
 */
export async function loadTarget(dir: string, target: string, opts: { repair: boolean }): Promise<LoadedTarget> {
  const loaded: LoadedTarget = { entries: new Map(), since: new Map() };
  const snapshotPath = join(dir, `${target}.json`);
  const snapshot = readStateFile(snapshotPath)?.toString('utf8');
  if (snapshot !== undefined) {
    const json = parseJson(snapshot);
    if (json === NOT_JSON) throw corruptSnapshot(snapshotPath, 'not valid JSON (truncated or overwritten?)');
    const parsed = snapshotSchema.safeParse(json);
    if (!parsed.success) throw corruptSnapshot(snapshotPath, issueText(parsed.error.issues[0]));
    if (parsed.data.target !== target) {
      // A copied or renamed file: its ids are another target's, and prune would delete them here.
      throw new ObsyncError(
        'INVENTORY_TARGET',
        `the inventory ${snapshotPath} is the state of target '${parsed.data.target}', not of target '${target}': it is not read`,
        {
          hint:
            `if it was copied or renamed, put it back as ${join(dir, `${parsed.data.target}.json`)}; otherwise move it away (obsync ` +
            `then adopts the objects of '${target}' again by natural key, and prunes nothing it has not re-adopted)`,
        },
      );
    }
    for (const e of parsed.data.entries) {
      const address = entryAddress(e);
      loaded.entries.set(address, keptEntry(e));
      loaded.since.set(address, ownValue(parsed.data.since, address) ?? e.updatedAt);
    }
  }
  const journalPath = join(dir, `${target}.journal`);
  const journal = readStateFile(journalPath);
  if (journal) await replayJournal(journalPath, journal, loaded, opts.repair);
  return loaded;
}

/** A target's entries split: those alone owning their object, and both owners of an object owned twice (skipped, named). */
export function ownedOnce(
  loaded: LoadedTarget,
  table: string,
): { entries: Map<Address, InventoryEntry>; doubled: Map<Address, InventoryEntry>; skipped: SkippedRow[] } {
  const owners = soleOwners([...loaded.entries.values()], table);
  const kept = new Set(owners.kept);
  return {
    entries: new Map([...loaded.entries].filter(([, e]) => kept.has(e))),
    doubled: new Map([...loaded.entries].filter(([, e]) => !kept.has(e))),
    skipped: owners.skipped,
  };
}

async function replayJournal(path: string, journal: Buffer, into: LoadedTarget, repair: boolean): Promise<void> {
  const complete = journal.lastIndexOf(0x0a) + 1;
  const lines = journal.subarray(0, complete).toString('utf8').split('\n');
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const json = parseJson(raw);
    const line = journalLine.safeParse(json);
    if (!line.success) {
      const detail = json === NOT_JSON ? 'not valid JSON' : issueText(line.error.issues[0]);
      throw new ObsyncError('INVENTORY_CORRUPT', `the inventory journal ${path} is damaged at line ${i + 1}: ${detail}`, {
        hint: `the lines after it may record creates in flight: fix or delete line ${i + 1} (keep a copy of the file), then run again`,
      });
    }
    applyLine(into, line.data);
  });
  if (complete === journal.length) return;
  // The tail has no newline: a process was killed while appending. A whole record is kept.
  const tail = journalLine.safeParse(parseJson(journal.subarray(complete).toString('utf8')));
  if (tail.success) applyLine(into, tail.data);
  if (!repair) return;
  if (tail.success) await writeFile(path, '\n', { flag: 'a' });
  else await truncate(path, complete);
}

export function applyLine(into: LoadedTarget, line: z.infer<typeof journalLine>): void {
  if (line.op === 'put') {
    const address = entryAddress(line.entry);
    into.entries.set(address, keptEntry(line.entry));
    if (!into.since.has(address)) into.since.set(address, line.entry.updatedAt);
  } else if (line.op === 'move') {
    const from = line.from as Address;
    const to = entryAddress(line.entry);
    // Owned since it was first recorded, under whichever name.
    const since = into.since.get(from) ?? line.entry.updatedAt;
    into.entries.delete(from);
    into.since.delete(from);
    into.entries.set(to, keptEntry(line.entry));
    into.since.set(to, since);
  } else {
    into.entries.delete(line.address as Address);
    into.since.delete(line.address as Address);
  }
}

function issueText(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'invalid';
  return issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}

/** A state file's bytes (bounded, regular files only), or undefined before it was first written. */
function readStateFile(path: string): Buffer | undefined {
  try {
    return readRegularBytesIfPresent(path, MAX_STATE_FILE_BYTES);
  } catch (err) {
    if (!(err instanceof FileRefusal)) throw err;
    throw new ObsyncError('INVENTORY_CORRUPT', `the inventory ${path} cannot be read: it is ${err.reason}`, {
      hint:
        'it should be a regular file written by obsync: restore it from a copy, or move it away (obsync then adopts objects again ' +
        'by natural key, and prunes nothing it has not re-adopted)',
    });
  }
}

function corruptSnapshot(path: string, detail: string): ObsyncError {
  return new ObsyncError('INVENTORY_CORRUPT', `the inventory ${path} is not readable: ${detail}`, {
    hint:
      'restore it from a copy, or move it away: obsync then adopts objects again by natural key, and prunes nothing it has not ' +
      're-adopted',
  });
}

const NOT_JSON = Symbol('not JSON');

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return NOT_JSON;
  }
}

/** Empties the journal (none yet is fine). */
export function truncateJournal(path: string): void {
  try {
    truncateSync(path, 0);
  } catch (err) {
    ignoreMissing(err);
  }
}

export function ignoreMissing(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw err;
}
