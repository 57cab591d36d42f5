/**
 * A manifest file that declared owned objects and now declares nothing — empty, or only `---` or
 * comments: a write cut short, a checkout that failed, a buffer saved empty — made its objects
 * look deleted, and prune deleted them without a word. The plan now warns, naming the file and the
 * objects, whether or not it prunes; and prune is refused while the file stays empty (a guard
 * beside the empty-kind one, ./prune.ts). The way to delete them is to delete the file (or their
 * documents): a file that is gone says what an empty one does not.
 *
 * Which file declared an object is what the inventory recorded when it was last planned
 * (`InventoryEntry.source`); objects recorded before that was kept are not attributed.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { Address } from '../core/plan.js';

export interface EmptiedFile {
  /** As the inventory records it: relative to the project. */
  file: string;
  /** The owned objects it declared, no longer declared by any file. */
  addresses: Address[];
}

/** The files among `empty` that declared some of these undeclared owned objects, each with them; sorted. */
export function emptiedFiles(undeclared: readonly InventoryEntry[], empty: ReadonlySet<string> | undefined): EmptiedFile[] {
  if (!empty || empty.size === 0) return [];
  const byFile = new Map<string, Address[]>();
  for (const entry of undeclared) {
    if (entry.source === undefined || !empty.has(entry.source)) continue;
    const list = byFile.get(entry.source) ?? [];
    list.push(entryAddress(entry));
    byFile.set(entry.source, list);
  }
  return [...byFile]
    .map(([file, addresses]) => ({ file, addresses: addresses.sort() }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

const EMPTY = 'declares nothing now (it is empty, or holds only `---` or comments)';

/** The plan's warning: the file, what it declared, and the way out. */
export function emptiedFileWarning(e: EmptiedFile): Diagnostic {
  return {
    severity: 'warning',
    code: 'emptied-file',
    file: e.file,
    message:
      `${EMPTY}, but it declared ${declared(e)}, which obsync owns: no longer declared anywhere, they would be deleted by ` +
      `prune, which refuses while the file is empty — restore the file if it was emptied by mistake (a write cut short, a failed ` +
      `checkout), or delete the file to delete them`,
  };
}

/** Why prune is refused while the file is empty. */
export function emptiedFileRefusal(e: EmptiedFile): string {
  return (
    `${e.file} ${EMPTY} but declared ${declared(e)}: refusing to delete what an empty file declared (a write cut short, a ` +
    `failed checkout?); restore it, or delete the file to delete them`
  );
}

function declared(e: EmptiedFile): string {
  const shown = e.addresses.slice(0, 5).join(', ');
  const more = e.addresses.length > 5 ? `, and ${e.addresses.length - 5} more` : '';
  return `${e.addresses.length} object(s) (${shown}${more})`;
}
