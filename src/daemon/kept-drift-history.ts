/**
 * The drift history kept in the target's state (issue 48): read before each run's count, so a
 * restart or the replica that takes the target over carries on from it, and written back when
 * the count changed. The state is written under the writer lease only; without it (a read-only
 * state) or when a write fails, the count goes on in memory and the run is not failed for it.
 */
import type { InventoryStore } from '../core/inventory.js';
import type { Json } from '../core/wire.js';
import type { RunReport } from '../engine/reconcile.js';
import type { Logger } from '../log/logger.js';
import { errorMessage } from '../core/errors.js';
import { driftHistoryNote, type DriftHistory, type IgnoreSuggestion } from './drift-history.js';

const NOTE = 'drift-history';

export async function recordKept(
  history: DriftHistory,
  report: Pick<RunReport, 'mode' | 'plan' | 'held'>,
  inventory: Pick<InventoryStore, 'target' | 'readNote' | 'writeNote'>,
  logger: Logger,
): Promise<IgnoreSuggestion[]> {
  const kept = await inventory.readNote(NOTE).catch((err: unknown) => {
    logger.warn({ target: inventory.target, err: errorMessage(err) }, 'drift history not read');
    return null;
  });
  const parsed = kept === null ? null : driftHistoryNote.safeParse(kept);
  if (parsed?.success) history.restore(parsed.data);
  else if (parsed) logger.warn({ target: inventory.target, err: parsed.error.message }, 'drift history not read');
  const before = JSON.stringify(history.toNote());
  const suggestions = history.record(report);
  const after = history.toNote();
  if (JSON.stringify(after) !== before || !parsed?.success)
    await inventory.writeNote(NOTE, after as unknown as Json).catch((err: unknown) => {
      logger.warn({ target: inventory.target, err: errorMessage(err) }, 'drift history not written');
    });
  return suggestions;
}
