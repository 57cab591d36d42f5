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
import { basename } from 'node:path';
import type { Logger } from '../log/logger.js';
import { isEditorScratch } from '../manifests/editor-files.js';

export interface ManifestWatcher {
  close(): Promise<void>;
}

export interface WatchOptions {
  /** How often the roots' identities are checked (default 1 s). */
  checkMs?: number;
  /** The longest a change waits while others keep coming (default 10 debounces, at least 1 s). */
  maxWaitMs?: number;
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
  let closed = false;
  let pending = new Set<string>();
  const batches = debouncer(debounceMs, opts.maxWaitMs ?? Math.max(10 * debounceMs, 1_000), () => {
    const batch = [...pending];
    pending = new Set();
    onChange(batch);
  });
  const fire = (event: string, path: string) => {
    logger.debug({ event, path }, 'manifest changed');
    pending.add(path);
    batches.poke();
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
      batches.cancel();
      await watcher.close();
    },
  };
}

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Calls `flush` once things have been quiet for `quietMs` — and at the latest `maxWaitMs` after the
 * first change it has not flushed yet: a steady stream of changes (a tool rewriting a file every
 * half second) must not hold the run back for ever.
 */
export function debouncer(quietMs: number, maxWaitMs: number, flush: () => void, timers: Timers = REAL_TIMERS) {
  let timer: unknown = null;
  let since: number | null = null;
  const run = () => {
    timer = null;
    since = null;
    flush();
  };
  return {
    poke(): void {
      const now = timers.now();
      since ??= now;
      if (timer !== null) timers.clearTimeout(timer);
      timer = timers.setTimeout(run, Math.max(0, Math.min(quietMs, since + maxWaitMs - now)));
    },
    cancel(): void {
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      since = null;
    },
  };
}

async function watchTree(paths: readonly string[], fire: (event: string, path: string) => void, logger: Logger): Promise<FSWatcher> {
  const watcher = watch([...paths], {
    ignoreInitial: true,
    // An editor's lock and swap files come and go while someone types: not a change of the manifests.
    ignored: (path, stats) => isEditorScratch(basename(path)) || (stats?.isFile() === true && !MANIFEST.test(path)),
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
