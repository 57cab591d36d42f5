/**
 * Issue 20, progress: the client reports retries (with their back-off) and requests still without
 * an answer after 2 s, so a terminal can show them; the CLI draws them on stderr's progress line
 * on a terminal, and never into a log.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectionOf } from '../../src/kinds/registry.js';
import { Secret } from '../../src/core/secret.js';
import { createServicePort } from '../../src/remote/index.js';
import type { RetryReport, SlowRequest } from '../../src/remote/transport-types.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(answers: { status: number; delayMs?: number }[]): Promise<string> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    const answer = answers[Math.min(n++, answers.length - 1)] ?? { status: 200 };
    setTimeout(
      () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [] })),
      answer.delayMs ?? 0,
    );
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

function port(baseUrl: string, progress: { onRetry?: (r: RetryReport) => void; onSlow?: (s: SlowRequest) => () => void }) {
  return createServicePort(
    {
      name: 't',
      variant: 'self-hosted',
      baseUrl,
      concurrency: 1,
      timeoutMs: 10_000,
      retries: 2,
      pacing: { limit: 0, windowMs: 1000 },
      embedded: false,
      apiKey: new Secret('progress-test-key'),
    },
    { progress },
  );
}

describe('the client reports', () => {
  it('each retry, with the attempt, the cause and the back-off', async () => {
    const url = await serve([{ status: 503 }, { status: 200 }]);
    const retries: RetryReport[] = [];
    const p = port(url, { onRetry: (r) => retries.push(r) });
    await collectionOf(p, 'Webhook').list();
    await p.close();
    expect(retries).toEqual([
      {
        method: 'GET',
        path: '/api/v2/webhooks',
        host: new URL(url).host,
        attempt: 2,
        attempts: 3,
        cause: 'HTTP 503',
        waitMs: expect.any(Number) as number,
      },
    ]);
  });

  it('a request without an answer after 2 s, and its end', async () => {
    const url = await serve([{ status: 200, delayMs: 2_600 }]);
    const events: string[] = [];
    const p = port(url, {
      onSlow: (s) => {
        events.push(`slow ${s.method} ${s.path}`);
        return () => events.push('answered');
      },
    });
    await collectionOf(p, 'Webhook').list();
    await p.close();
    expect(events).toEqual(['slow GET /api/v2/webhooks', 'answered']);
  });

  it('nothing for a request that answers in time', async () => {
    const url = await serve([{ status: 200 }]);
    const events: string[] = [];
    const p = port(url, { onSlow: () => (events.push('slow'), () => events.push('end')) });
    await collectionOf(p, 'Webhook').list();
    await p.close();
    expect(events).toEqual([]);
  });
});

describe('obsync plan against a slow server', () => {
  it('shows the slow requests on a terminal progress line, and nothing of it in CI', async () => {
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    const dir = mkdtempSync(join(tmpdir(), 'obsync-progress-'));
    try {
      writeFileSync(
        join(dir, 'obsync.yaml'),
        `apiVersion: obsync/v1\nkind: Config\nmanifests: [m.yaml]\ntargets:\n  - {name: sh, variant: self-hosted, baseUrl: ` +
          `${sandbox.url}, credentials: {apiKey: ${sandbox.credentials.apiKey}}}\n`,
      );
      writeFileSync(join(dir, 'm.yaml'), 'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec: {name: D, tiles: []}\n');
      sandbox.faults.set({ latencyMs: 2_300 });
      const tty = fakeIO(dir);
      Object.assign(tty.io.stderr, { isTTY: true, columns: 200 });
      expect(await runInProcess(tty.io, ['plan'])).toBe(0);
      expect(tty.err()).toContain('\r\x1b[2Kobsync: GET /api/v2/');
      expect(tty.err()).toMatch(/obsync: GET \/api\/v2\/\S+: no answer yet from 127\.0\.0\.1:\d+ after \d+ s/);
      expect(tty.out()).toContain('+ Dashboard/d');

      const ci = fakeIO(dir, { env: { CI: 'true' } });
      Object.assign(ci.io.stderr, { isTTY: true });
      expect(await runInProcess(ci.io, ['plan'])).toBe(0);
      expect(ci.err()).not.toContain('no answer yet');
      expect(ci.err()).not.toContain('\x1b[2K');
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
