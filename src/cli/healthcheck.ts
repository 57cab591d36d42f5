/**
 * Container HEALTHCHECK (slim images have no curl): exit 0 when the daemon's `/livez` answers
 * 200. It probes the address the running process serves, recorded in OBSYNC_URL_OUT (so
 * `--listen` given to `docker run` is followed); without that record, OBSYNC_LISTEN.
 */
import { readRegularFile } from '../manifests/files.js';
import { probeUrl, probeUrlOfListen } from './healthcheck-url.js';

function target(): string | null {
  const recorded = process.env.OBSYNC_URL_OUT;
  if (recorded) {
    try {
      // A URL: a few bytes. Bounded and never blocked, as every read (a FIFO here would hang the healthcheck).
      return probeUrl(readRegularFile(recorded, 64 * 1024));
    } catch {
      // Not recorded yet (starting), not writable here, or not a small regular file: the listen setting is the best guess.
    }
  }
  return probeUrlOfListen(process.env.OBSYNC_LISTEN ?? '127.0.0.1:9464');
}

const url = target();
try {
  const res = url ? await fetch(url, { signal: AbortSignal.timeout(2_000) }) : null;
  process.exitCode = res?.ok ? 0 : 1;
} catch {
  process.exitCode = 1;
}
