/**
 * Where the container's HEALTHCHECK finds the daemon. `obsync run` records the URL it serves
 * (after binding, so `--listen`, OBSYNC_LISTEN, port 0 and a wildcard host are all resolved) in
 * the file OBSYNC_URL_OUT names; the healthcheck reads it back. A wildcard address is probed on
 * loopback, as the process answers there too.
 */
import { rmSync } from 'node:fs';
import { writeFileAtomically } from '../manifests/atomic-write.js';

/** The URL to probe for a URL the daemon reported (`http://0.0.0.0:9464` → `http://127.0.0.1:9464`). */
export function probeUrl(served: string): string | null {
  let url: URL;
  try {
    url = new URL(served.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || url.port === '') return null;
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  else if (url.hostname === '[::]') url.hostname = '[::1]';
  return `${url.origin}/livez`;
}

/** The fallback without a recorded URL: the address OBSYNC_LISTEN (or the default) names. */
export function probeUrlOfListen(listen: string): string | null {
  const i = listen.lastIndexOf(':');
  if (i <= 0) return null;
  const host = listen.slice(0, i);
  return probeUrl(`http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${listen.slice(i + 1)}`);
}

/** Records the URL the daemon serves, whole (a reader never sees half a line). */
export function recordServedUrl(file: string, url: string): void {
  writeFileAtomically(file, `${url}\n`, { mode: 0o644 });
}

export function forgetServedUrl(file: string): void {
  rmSync(file, { force: true });
}
