/**
 * Issue 49 item 3: `obsync search` in-process against one sandbox over loopback. The rows of a
 * range whose first window's page is short are the rows one offset request answers (the cursor
 * was followed past the short page); --limit holds; JSON lines parse; hosted is refused; a log
 * body carrying terminal controls and a workflow command prints inert (the OTLP receiver stores it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { RAW_UNSAFE, RUNNER_COMMAND } from '../support/hostile-text.js';

let sandbox: SandboxHandle;
let dir: string;
const END = Math.floor(Date.now() / 60_000) * 60_000;
const RANGE = ['--from', new Date(END - 3 * 3600_000).toISOString(), '--to', new Date(END).toISOString()];
const HOSTILE = 'payment failed \u001b[2J\u001b]8;;http://x\u0007 \u202egnp.exe\r\n::error::forged ##[stop-commands]x';

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, otlpPort: 0, rateLimit: 'off' });
  const c = sandbox.credentials;
  dir = mkdtempSync(join(tmpdir(), 'obsync-search-'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1
kind: Config
targets:
  - {name: sh, variant: self-hosted, baseUrl: ${sandbox.url}, credentials: {apiKey: ${c.apiKey}}}
  - {name: ho, variant: hosted, baseUrl: ${sandbox.url}, organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, ` +
      `credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}}
`,
  );
  const log = {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
        scopeLogs: [
          { logRecords: [{ timeUnixNano: `${Date.now() - 60_000}000000`, severityText: 'ERROR', body: { stringValue: HOSTILE } }] },
        ],
      },
    ],
  };
  const res = await fetch(`${sandbox.otlp?.url}/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(log),
  });
  expect(res.status).toBe(200);
});

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function search(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const f = fakeIO(dir);
  const code = await runInProcess(f.io, ['search', ...args]);
  return { code, out: f.out(), err: f.err() };
}

/** One offset request for the whole range, as the command's walk asks it (same select and order). */
async function oneRequest(): Promise<unknown[]> {
  const res = await fetch(`${sandbox.url}/api/v2/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      sourceId: DEMO_IDS.metrics,
      startTime: RANGE[1],
      endTime: RANGE[3],
      where: '',
      whereLanguage: 'lucene',
      select: 'TimeUnix, MetricName',
      orderBy: 'TimeUnix DESC',
      maxResults: 500,
    }),
  });
  return ((await res.json()) as { data: unknown[] }).data;
}

describe('obsync search', () => {
  it('follows the cursor past a short first page to the rows one offset request answers, as JSON lines, within --limit', async () => {
    const whole = await oneRequest();
    expect(whole).toHaveLength(180);
    const all = await search([
      '--target',
      'sh',
      '--source',
      'Metrics',
      '--select',
      'MetricName',
      ...RANGE,
      '--limit',
      '1000',
      '--output',
      'json',
    ]);
    expect(all.code, all.err).toBe(0);
    // Window one (15 min) answers a short page of 15; the other 165 rows come only by following its cursor.
    expect(
      all.out
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(whole);
    expect(all.err).not.toMatch(/stopped/);

    const limited = await search([
      '--target',
      'sh',
      '--source',
      'Metrics',
      '--select',
      'MetricName',
      ...RANGE,
      '--limit',
      '150',
      '--output',
      'json',
    ]);
    expect(limited.code, limited.err).toBe(0);
    expect(
      limited.out
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(whole.slice(0, 150));
  });

  it('prints a table, the timestamp first in ISO 8601, --limit rows', async () => {
    const res = await search(['--target', 'sh', '--source', 'Metrics', '--select', 'MetricName', ...RANGE, '--limit', '20']);
    expect(res.code, res.err).toBe(0);
    const [header, ...rows] = res.out.trimEnd().split('\n');
    expect(header).toMatch(/^TimeUnix +MetricName$/);
    expect(rows).toHaveLength(20);
    for (const row of rows) expect(row).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}MetricName-[0-9a-f]{8}$/);
  });

  it('refuses a hosted target clearly, before any search', async () => {
    const res = await search(['--target', 'ho', '--source', 'Logs']);
    expect(res.code).toBe(1);
    expect(res.err).toContain("target 'ho' (hosted) does not support raw-row searches (self-hosted variant only)");
    expect(res.out).toBe('');
  });

  it('prints a log body carrying terminal controls, bidi and workflow commands inert; JSON keeps its value', async () => {
    const text = await search(['--target', 'sh', '--source', 'Logs', '--select', 'Body', '--since', '1h']);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain('payment failed \\u001b[2J');
    expect(text.out).not.toMatch(RAW_UNSAFE);
    expect(text.out).not.toMatch(RUNNER_COMMAND);
    const json = await search(['--target', 'sh', '--source', 'Logs', '--select', 'Body', '--since', '1h', '--output', 'json']);
    expect(json.out).not.toMatch(RAW_UNSAFE);
    expect(json.out).not.toMatch(RUNNER_COMMAND);
    const rows = json.out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { Body: string });
    expect(rows.map((r) => r.Body)).toEqual([HOSTILE]);
  });
});
