/**
 * Manifest watcher: chokidar events on .yaml/.yml files, debounced across files so a `git pull`
 * of forty files gives one run. A hint only: the schedule is the source of truth.
 *
 * A watch follows the directory it started on. When a watched root is replaced — `mv new root`,
 * git-sync's atomic swap of the `root -> .git/worktrees/<hash>` link — or appears only after
 * start-up, the old watch would see nothing ever again. (A ConfigMap's `..data` swap inside the
 * root shows as ordinary file events.) So the identity of each root (its real path and inode) is
 * checked every `checkMs`; when it changes, the watcher is rebuilt on the new tree and a run is
 * triggered at once.
 */
import { realpathSync, statSync } from 'node:fs';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../log/logger.js';

export interface ManifestWatcher {
  close(): Promise<void>;
}

export interface WatchOptions {
  /** How often the roots' identities are checked (default 1 s). */
  checkMs?: number;
}

const MANIFEST = /\.ya?ml$/;

/** `onChange` gets the paths that changed during the debounce (a replaced root: the root itself). */
export async function startWatcher(
  paths: readonly string[],
  debounceMs: number,
  onChange: (changed: readonly string[]) => void,
  logger: Logger,
  opts: WatchOptions = {},
): Promise<ManifestWatcher> {
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let pending = new Set<string>();
  const fire = (event: string, path: string) => {
    logger.debug({ event, path }, 'manifest changed');
    pending.add(path);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      const batch = [...pending];
      pending = new Set();
      onChange(batch);
    }, debounceMs);
  };

  let watcher = await watchTree(paths, fire, logger);
  let identities = paths.map(identityOf);
  let checking = false;
  const check = async () => {
    if (checking || closed) return;
    checking = true;
    try {
      const now = paths.map(identityOf);
      const changed = paths.filter((_p, i) => now[i] !== identities[i]);
      if (changed.length === 0) return;
      identities = now;
      logger.info({ paths: changed }, 'manifest root replaced: watching the new tree');
      // Closed first: chokidar shares its fs.watch handles by path, and the old handle still
      // watches the old tree. The run fired below reads whatever changed in between.
      await watcher.close();
      watcher = await watchTree(paths, fire, logger);
      if (closed) await watcher.close();
      else fire('root-replaced', changed[0] ?? '');
    } finally {
      checking = false;
    }
  };
  const poll = setInterval(() => void check(), opts.checkMs ?? 1_000);
  poll.unref();

  return {
    async close() {
      closed = true;
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}

async function watchTree(paths: readonly string[], fire: (event: string, path: string) => void, logger: Logger): Promise<FSWatcher> {
  const watcher = watch([...paths], {
    ignoreInitial: true,
    ignored: (path, stats) => stats?.isFile() === true && !MANIFEST.test(path),
    awaitWriteFinish: false,
  });
  watcher
    .on('add', (p) => fire('add', p))
    .on('change', (p) => fire('change', p))
    .on('unlink', (p) => fire('unlink', p));
  watcher.on('error', (err) => logger.warn({ err: String(err) }, 'watcher error'));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return watcher;
}

/** What a path is now: its real path and inode (a replaced or re-linked root differs), or `missing`. */
function identityOf(path: string): string {
  try {
    const real = realpathSync(path);
    const stat = statSync(real);
    return `${real}\u0000${stat.dev}\u0000${stat.ino}`;
  } catch {
    return 'missing';
  }
}
