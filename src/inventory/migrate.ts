/**
 * `obsync state migrate`: copies every target's entries (with their first-seen time), backups
 * and the fingerprint key from one backend to another, each target under the writer lease of
 * both sides. The destination must hold no entries; the source is left as it was.
 */
import { LockError, ObsyncError } from '../core/errors.js';
import { skippedRowText, type SkippedRow } from '../core/inventory.js';
import type { StateBackend, WriterLease } from './backend.js';

export interface MigrationReport {
  targets: { target: string; entries: number; backups: number }[];
  keyCopied: boolean;
  /** Backups that could not be read, so not copied. */
  skipped: SkippedRow[];
}

export async function migrateState(from: StateBackend, to: StateBackend): Promise<MigrationReport> {
  const targets = await from.targets();
  for (const target of targets) {
    const existing = await to.records(target);
    const count = existing.records.length + existing.skipped.length;
    if (count > 0) {
      throw new ObsyncError('STATE_NOT_EMPTY', `${to.location} already holds ${count} entries for target '${target}': nothing was copied`, {
        hint: 'migrate into an empty state (a new schema or directory), or forget those entries first with `obsync state rm`',
      });
    }
    // A copy without an entry would disown its object without a word: the source is repaired first.
    const [unreadable] = (await from.records(target)).skipped;
    if (unreadable)
      throw new ObsyncError(
        'STATE_UNREADABLE',
        `${from.location} cannot be copied whole: ${skippedRowText(unreadable)}. Nothing was copied`,
      );
  }
  const key = await from.fingerprintKey();
  if (key) await to.setFingerprintKey(key);
  const report: MigrationReport = { targets: [], keyCopied: key !== null, skipped: [] };
  for (const target of targets) {
    const source = await lease(from, target);
    try {
      const destination = await lease(to, target);
      try {
        const { records } = await from.records(target);
        const { backups, skipped } = await from.backups(target);
        await to.importTarget(destination, records, backups);
        report.targets.push({ target, entries: records.length, backups: backups.length });
        report.skipped.push(...skipped);
      } finally {
        await destination.release();
      }
    } finally {
      await source.release();
    }
  }
  return report;
}

async function lease(backend: StateBackend, target: string): Promise<WriterLease> {
  const attempt = await backend.tryLease(target, 'state migrate');
  if ('lease' in attempt) return attempt.lease;
  throw new LockError(
    `the state of target '${target}' in ${backend.location} is locked by another obsync (${attempt.heldBy})`,
    'stop the daemons and runs of this target, then migrate',
  );
}
