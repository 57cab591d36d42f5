/**
 * Manifest watcher: chokidar events on .yaml/.yml files, debounced across files so a `git pull`
 * of forty files gives one run. A hint only: the schedule is the source of truth (ConfigMap
 * symlink swaps are often missed by watchers).
 */
import { watch } from 'chokidar';
import type { Logger } from '../log/logger.js';

export interface ManifestWatcher {
  close(): Promise<void>;
}

const MANIFEST = /\.ya?ml$/;

export async function startWatcher(paths: readonly string[], debounceMs: number, onChange: () => void, logger: Logger): Promise<ManifestWatcher> {
  let timer: NodeJS.Timeout | null = null;
  const watcher = watch([...paths], {
    ignoreInitial: true,
    ignored: (path, stats) => stats?.isFile() === true && !MANIFEST.test(path),
    awaitWriteFinish: false,
  });
  const fire = (event: string, path: string) => {
    logger.debug({ event, path }, 'manifest changed');
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      onChange();
    }, debounceMs);
  };
  watcher.on('add', (p) => fire('add', p)).on('change', (p) => fire('change', p)).on('unlink', (p) => fire('unlink', p));
  watcher.on('error', (err) => logger.warn({ err: String(err) }, 'watcher error'));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    async close() {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}
