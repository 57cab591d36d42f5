/**
 * Issue 45, the daemon's telemetry: `obsync sandbox --otlp-port` serves the receiver (a child
 * process), `obsync run` (a child process: its signal handling is the point) exports each run as
 * a root `obsync.run` span with its trigger (startup, manual on SIGHUP, watch on a file change),
 * target and result, the backtest span below it when backtests are on, and flushes its spans and
 * logs at the graceful stop SIGTERM starts: the batch delay is set to ten minutes, so nothing
 * reaches the receiver but by that flush. A plan with --preview-dir (in this process) has its
 * preview span under its run.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/sandbox/domain/index.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/defaults.js';
import { ATTR, SPAN } from '../../src/telemetry/names.js';
import { assertBuilt, cliInChildProcesses, runCli, spawnCli } from '../support/cli.js';
import { startDaemon } from '../support/daemon.js';
import { until } from '../support/wait.js';

// The plan with --preview-dir runs as a user runs it, in a process of its own: run in the test's worker, it
// left that worker's next OTLP metric export empty (test/telemetry/otlp-export.test.ts after it; not yet explained).
cliInChildProcesses();

const KEY = SANDBOX_DEFAULTS.apiKey;
let sandboxProcess: ChildProcess;
let sandboxUrl: string;
let otlpUrl: string;
let dir: string;

const dashboard = (markdown: string) =>
  'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: watched}\nspec:\n  name: Watched\n' +
  `  tiles: [{name: Notes, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: ${markdown}}}]\n`;

beforeAll(async () => {
  assertBuilt();
  sandboxProcess = spawnCli(['sandbox', '--port', '0', '--otlp-port', '0', '--rate-limit', 'off'], { cwd: tmpdir() });
  let out = '';
  sandboxProcess.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  [sandboxUrl, otlpUrl] = await until('the sandbox to print its addresses', () => {
    const api = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const otlp = /OTLP\/HTTP receiver: (http:\/\/\S+)/.exec(out)?.[1];
    return api && otlp ? [api, otlp] : undefined;
  });
  dir = mkdtempSync(join(tmpdir(), 'obsync-daemon-spans-'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    'apiVersion: obsync/v1\nkind: Config\nmanifests: [m.yaml]\nstate: {backend: file, path: state}\ndefaults: {backtest: 1d}\n' +
      `targets:\n  - name: d\n    variant: self-hosted\n    baseUrl: ${sandboxUrl}\n    credentials: {apiKey: "\${env:KEY}"}\n`,
  );
  writeFileSync(join(dir, 'm.yaml'), dashboard('one'));
});

afterAll(async () => {
  if (sandboxProcess && sandboxProcess.exitCode === null) {
    sandboxProcess.kill('SIGTERM');
    await new Promise((r) => sandboxProcess.once('exit', r));
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function search(sourceId: string, where: string, select: string): Promise<Record<string, string>[]> {
  const res = await fetch(`${sandboxUrl}/api/v2/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sourceId, where, select, startTime: new Date(Date.now() - 3_600_000).toISOString() }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Record<string, string>[] }).data;
}

const attr = (key: string) => `SpanAttributes['${key}']`;

describe("the daemon's telemetry", () => {
  it('exports a root span per run (trigger, target, result) with its backtest, flushed at SIGTERM', async () => {
    const env = {
      KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
      // Nothing is exported on a timer during the test: what arrives, arrives by the flush at the stop.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      OTEL_BLRP_SCHEDULE_DELAY: '600000',
      OTEL_METRIC_EXPORT_INTERVAL: '600000',
    };
    const daemon = await startDaemon(dir, ['--mode', 'plan', '--schedule', '0 0 1 1 *', '--debounce', '50'], env);
    const finished = (n: number) =>
      until(`run ${n} to finish`, () => (daemon.events('run-finished').length >= n ? true : undefined), { context: daemon.output });
    try {
      await finished(1);
      daemon.child.kill('SIGHUP');
      await finished(2);
      writeFileSync(join(dir, 'm.yaml'), dashboard('two'));
      await finished(3);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }

    const select = ['TraceId', 'SpanId', 'ParentSpanId', 'SpanName', attr(ATTR.trigger), attr(ATTR.target), attr(ATTR.result)].join(', ');
    const runs = await search(DEMO_IDS.traces, `SpanName:${SPAN.run}`, select);
    expect(runs.map((r) => r[attr(ATTR.trigger)]).sort()).toEqual(['manual', 'startup', 'watch']);
    for (const run of runs) {
      expect(run.ParentSpanId).toBe('');
      expect(run).toMatchObject({ [attr(ATTR.target)]: 'd', [attr(ATTR.result)]: 'success' });
    }
    expect(new Set(runs.map((r) => r.TraceId)).size).toBe(3);

    const backtests = await search(DEMO_IDS.traces, `SpanName:${SPAN.backtest}`, 'ParentSpanId');
    expect(backtests.map((b) => b.ParentSpanId).sort()).toEqual(runs.map((r) => r.SpanId).sort());

    const last = runs.find((r) => r[attr(ATTR.trigger)] === 'watch');
    const logs = await search(DEMO_IDS.logs, `TraceId:${last?.TraceId ?? 'none'}`, 'Body, SpanId');
    expect(logs.length).toBeGreaterThan(0);
  });

  it('has the preview span under the run of a plan with --preview-dir', async () => {
    const env = { KEY, OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl };
    writeFileSync(join(dir, 'm.yaml'), dashboard('three'));
    const planned = await runCli(['plan', '--no-backtest', '--preview-dir', join(dir, 'previews')], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    const [preview] = await search(DEMO_IDS.traces, `SpanName:${SPAN.preview}`, 'ParentSpanId, TraceId');
    expect(preview, 'an obsync.preview span').toBeDefined();
    const runs = await search(DEMO_IDS.traces, `SpanName:${SPAN.run} AND TraceId:${preview?.TraceId ?? 'none'}`, 'SpanId');
    expect(runs.map((r) => r.SpanId)).toEqual([preview?.ParentSpanId]);
    expect(await search(DEMO_IDS.traces, `SpanName:${SPAN.backtest} AND TraceId:${preview?.TraceId ?? 'none'}`, 'SpanId')).toEqual([]);
  });
});
