/** Polling helpers for tests that drive a child process and the sandbox over loopback. */
import type { SandboxHandle } from '../../src/sandbox/index.js';

/** Polls `probe` until it returns a value; on timeout the error carries `context()` (e.g. the child's output). */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  opts: { timeoutMs?: number; context?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${opts.context ? `\n--- output ---\n${opts.context()}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The HTTP status of a GET, or undefined while nothing listens. */
export async function httpStatus(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

/** The sandbox's self-hosted dashboards, read directly. */
export async function sandboxDashboards(sandbox: SandboxHandle): Promise<{ name: string; tags: string[] }[]> {
  const res = await fetch(`${sandbox.url}/api/v2/dashboards`, { headers: { authorization: `Bearer ${sandbox.credentials.apiKey}` } });
  return ((await res.json()) as { data: { name: string; tags: string[] }[] }).data;
}

/**
 * The address a daemon started with `--listen 127.0.0.1:0` bound, from its `daemon started` log
 * line (JSON on stderr): the daemon takes a free port itself, so no test picks one that another
 * process may take first.
 */
export function daemonUrl(output: string): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"daemon started"')) continue;
    try {
      const listen = (JSON.parse(line) as { listen?: unknown }).listen;
      if (typeof listen === 'string') return listen;
    } catch {
      // a line cut by a chunk boundary: the next look has all of it
    }
  }
  return undefined;
}

/**
 * The address a daemon listens on, once its `daemon started` line is in `output()`. A daemon on a
 * PostgreSQL state, started while the rest of the suite and the typecheck load both cores, has
 * been seen to take over 20 s, so this waits a minute and shows the daemon's output if it never
 * comes.
 */
export function untilListening(output: () => string, what = 'the address the daemon listens on'): Promise<string> {
  return until(what, () => daemonUrl(output()), { timeoutMs: 60_000, context: () => output().slice(-3000) });
}

/**
 * A loopback address where nothing listens (port 1, tcpmux, is never served here): a target whose
 * server is down. Not a port found free by a probe socket, which another process may take first.
 */
export const NOTHING_LISTENS = 'http://127.0.0.1:1';
