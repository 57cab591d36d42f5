/**
 * A collector takes the daemon's output as it is: with its logs in JSON (stderr not a terminal),
 * every line `obsync run` writes to stdout and to stderr parses as a JSON object — its start-up,
 * the embedded sandbox's announcement, a reconcile with every request logged (debug), its
 * shutdown on SIGTERM, and an error that stops it from starting. Request lines carry
 * OpenTelemetry's HTTP fields, and no line has a top-level `status` or `host` (keys log backends
 * reserve).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI } from '../support/cli.js';
import { until, untilListening } from '../support/wait.js';

let dir: string;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'obsync-json-logs-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: dev, variant: sandbox}\n',
  );
  writeFileSync(
    join(dir, 'manifests', 'd.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: checkout}\nspec:\n  name: Checkout\n  tiles: []\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `obsync run` with stdout and stderr as pipes (as a container's are), each stream's text kept apart. */
function daemon(args: string[]) {
  const child = spawn(process.execPath, [CLI, 'run', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', OBSYNC_LOG_LEVEL: 'debug' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out, exit };
}

/** Each line of each stream that is not a JSON object. */
function notJson(out: { stdout: string; stderr: string }): string[] {
  return Object.entries(out).flatMap(([stream, text]) =>
    text
      .split('\n')
      .slice(0, -1)
      .filter((line) => {
        try {
          const parsed: unknown = JSON.parse(line);
          return typeof parsed !== 'object' || parsed === null || Array.isArray(parsed);
        } catch {
          return true;
        }
      })
      .map((line) => `${stream}: ${line}`),
  );
}

const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('obsync run in JSON mode', () => {
  it('writes only JSON lines on stdout and stderr, from start-up to shutdown, requests in OpenTelemetry fields', async () => {
    const { child, out, exit } = daemon(['--listen', '127.0.0.1:0', '--no-watch', '--schedule', '0 0 1 1 *']);
    const context = () => `${out.stderr}\n${out.stdout}`;
    await untilListening(() => out.stderr);
    await until('the first run to finish', () => (out.stderr.includes('"msg":"run finished"') ? true : undefined), { context });
    child.kill('SIGTERM');
    expect(await exit).toBe(0);

    expect(notJson(out)).toEqual([]);
    const lines = records(out.stderr);
    const messages = lines.map((l) => l.msg);
    expect(messages).toEqual(
      expect.arrayContaining(['reconciling: status page, health and metrics served', 'signal received: shutting down']),
    );
    // The embedded sandbox's announcement, once text on stderr, is a record too.
    expect(lines.some((l) => typeof l.text === 'string' && l.text.includes('embedded sandbox'))).toBe(true);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) {
      expect(r['http.request.method']).toMatch(/^(GET|POST|PUT|PATCH|DELETE)$/);
      expect(r['url.path']).toMatch(/^\//);
      expect(r['server.address']).toBe('127.0.0.1');
      expect(typeof r['http.response.status_code']).toBe('number');
    }
    for (const l of lines) expect(Object.keys(l).filter((k) => k === 'status' || k === 'host')).toEqual([]);
  });

  it('an error that stops it from starting is a JSON record too', async () => {
    const { out, exit } = daemon(['--config', 'missing.yaml', '--listen', '127.0.0.1:0']);
    expect(await exit).toBe(1);
    expect(notJson(out)).toEqual([]);
    const failed = records(out.stderr).find((r) => r.msg === 'obsync run failed');
    expect(failed?.level).toBe('error');
    expect(failed?.error).toContain('missing.yaml');
  });
});
