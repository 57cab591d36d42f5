/** Small process helpers the daemon benches share. */

/** Polls until the probe has a value (every 5 ms: the benches time what they wait for). */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * The address `obsync run --listen 127.0.0.1:0` bound, from its `daemon started` log line (JSON
 * on stderr): the daemon picks the port, nobody probes for one.
 */
export function daemonUrl(stderr: string): string | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.includes('"msg":"daemon started"')) continue;
    const listen = (JSON.parse(line) as { listen?: unknown }).listen;
    if (typeof listen === 'string') return listen;
  }
  return undefined;
}

/**
 * Follows a child's log stream line by line (a line split across chunks is joined first), keeping
 * its first characters: where the daemon logs its address and the inspector its own.
 */
export function followLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void, headChars = 16384): { head: () => string } {
  let head = '';
  let pending = '';
  stream.on('data', (d: Buffer) => {
    const text = d.toString();
    if (head.length < headChars) head += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  return { head: () => head };
}
