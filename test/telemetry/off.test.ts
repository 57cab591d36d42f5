/**
 * Telemetry off costs nothing: with no OTEL_* endpoint, startTelemetry loads no OpenTelemetry
 * module. A child process records every module the ESM loader resolves (a module.register resolve
 * hook appending to a file before the import completes) and lists the @opentelemetry ones; the
 * same child with an endpoint set is the control that the recording sees the SDK when it loads.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'obsync-otel-off-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

function loadedOtelModules(env: Record<string, string>): string[] {
  const file = join(dir, `loaded-${Object.keys(env).length}.txt`);
  const entry = pathToFileURL(join(process.cwd(), 'dist/telemetry/index.js')).href;
  const script = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), { data: { file: ${JSON.stringify(file)} } });
const { startTelemetry } = await import(${JSON.stringify(entry)});
const telemetry = await startTelemetry(JSON.parse(process.argv[1]), { version: 'test' });
await telemetry.span('x', {}, async () => 1);
await telemetry.shutdown();`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(env)], { env: { PATH: process.env.PATH ?? '' } });
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((url) => url.includes('/node_modules/@opentelemetry/'));
}

describe('telemetry off', () => {
  it('loads no OpenTelemetry module when no endpoint is set; the SDK loads when one is', () => {
    expect(loadedOtelModules({})).toEqual([]);
    // The control: the SDK is seen when it loads (the endpoint is never reached: nothing listens on port 9).
    const on = loadedOtelModules({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_TIMEOUT: '200' });
    expect(on.some((url) => url.includes('/@opentelemetry/sdk-trace-base/'))).toBe(true);
  });
});
