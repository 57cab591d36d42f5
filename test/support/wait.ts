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
