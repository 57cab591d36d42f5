/** Container HEALTHCHECK (slim images have no curl): exit 0 when `/livez` answers 200. */
const listen = process.env.OBSYNC_LISTEN ?? '127.0.0.1:9464';
const port = listen.slice(listen.lastIndexOf(':') + 1);

try {
  const res = await fetch(`http://127.0.0.1:${port}/livez`, { signal: AbortSignal.timeout(2_000) });
  process.exitCode = res.ok ? 0 : 1;
} catch {
  process.exitCode = 1;
}
