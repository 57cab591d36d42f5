/**
 * A proposed file against the base branch as it is now. The pull engine computed the new text from
 * the manifests obsync read (`before`); the base may have moved since (a git-sync volume lags, a
 * commit landed). Writing the new text whole would silently undo that commit, so the file is
 * merged three ways with `git merge-file` (base: what obsync read; ours: the new text; theirs: the
 * branch now): a clean merge keeps both changes, overlapping ones are a conflict, never a side picked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Git } from './git.js';

export type Merged = { ok: true; text: string | null } | { ok: false; reason: string };

export async function mergeFile(
  git: Git,
  scratch: string,
  file: { before: string | null; after: string | null },
  current: string | undefined,
): Promise<Merged> {
  const now = current ?? null;
  if (now === file.before || now === file.after) return { ok: true, text: file.after };
  if (file.before === null) return { ok: false, reason: 'the file was also created in Git, with other content' };
  if (file.after === null || now === null)
    return {
      ok: false,
      reason: file.after === null ? 'the file changed in Git and its objects were deleted on the service' : 'the file was deleted in Git',
    };
  const dir = mkdtempSync(join(scratch, 'merge-'));
  try {
    const [ours, base, theirs] = ['ours', 'base', 'theirs'].map((name) => join(dir, name)) as [string, string, string];
    writeFileSync(ours, file.after);
    writeFileSync(base, file.before);
    writeFileSync(theirs, now);
    const r = await git(['merge-file', '--quiet', '--stdout', ours, base, theirs], { allowFailure: true });
    if (r.code === 0) return { ok: true, text: r.stdout };
    return { ok: false, reason: 'the same lines changed in Git since obsync read the file, and on the service' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
