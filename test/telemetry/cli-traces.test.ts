/**
 * Issue 45 part 2, end to end: `obsync apply` with OTEL_EXPORTER_OTLP_ENDPOINT set exports its
 * span tree (command → run → read/plan/apply → steps → HTTP requests) and its log lines to the
 * sandbox's OTLP receiver; the spans are found through the sandbox's search API; the target's
 * API key appears nowhere in what was stored.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/sandbox/domain/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ATTR, SPAN } from '../../src/telemetry/names.js';
import { assertBuilt, runCli } from '../support/cli.js';

const CANARY_KEY = 'canary-cli-otel-key-7e31d9';
let sandbox: SandboxHandle;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, otlpPort: 0, rateLimit: 'off', apiKey: CANARY_KEY });
  dir = mkdtempSync(join(tmpdir(), 'obsync-cli-otel-'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [m.yaml]\nstate: {backend: file, path: state}\ntargets:\n  - name: traced\n` +
      `    variant: self-hosted\n    baseUrl: ${sandbox.url}\n    credentials: {apiKey: "\${env:TRACED_KEY}"}\n`,
  );
  writeFileSync(
    join(dir, 'm.yaml'),
    `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: traced}\nspec:\n  name: Traced\n` +
      `  tiles: [{name: Notes, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: hello}}]\n`,
  );
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

type Row = Record<string, unknown> & { SpanId: string; ParentSpanId: string; SpanName: string; TraceId: string };
const spans = () => (sandbox.otlp?.store.rows('otel_traces') ?? []) as Row[];

describe('obsync apply exports its traces and logs', () => {
  it('sends the tree command → run → read/plan/apply → requests, logs with the trace id, no credential', async () => {
    const env = { TRACED_KEY: CANARY_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: sandbox.otlp?.url ?? '', OBSYNC_LOG_LEVEL: 'info' };
    const result = await runCli(['apply', '--auto-approve'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);

    const rows = spans();
    const one = (name: string) => rows.filter((r) => r.SpanName === name);
    const [command] = one(SPAN.command);
    const [run] = one(SPAN.run);
    expect(command?.ParentSpanId).toBe('');
    expect(command?.SpanAttributes).toMatchObject({ [ATTR.command]: 'apply', [ATTR.result]: 'success' });
    expect(run?.ParentSpanId).toBe(command?.SpanId);
    expect(run?.SpanAttributes).toMatchObject({ [ATTR.target]: 'traced', [ATTR.mode]: 'apply', [ATTR.result]: 'success' });
    for (const phase of [SPAN.readLive, SPAN.plan, SPAN.apply]) expect(one(phase)[0]?.ParentSpanId, phase).toBe(run?.SpanId);
    const [step] = one(SPAN.applyStep);
    expect(step?.ParentSpanId).toBe(one(SPAN.apply)[0]?.SpanId);
    expect(step?.SpanAttributes).toMatchObject({ [ATTR.address]: 'Dashboard/traced', [ATTR.action]: 'create' });

    const http = rows.filter((r) => /^(GET|POST|PUT|PATCH|DELETE) \//.test(r.SpanName));
    const readId = one(SPAN.readLive)[0]?.SpanId;
    expect(http.some((r) => r.ParentSpanId === readId && r.SpanName === 'GET /api/v2/dashboards')).toBe(true);
    expect(http.some((r) => r.ParentSpanId === step?.SpanId && r.SpanName === 'POST /api/v2/dashboards')).toBe(true);
    for (const r of http) {
      expect(r.SpanName).not.toContain('?');
      expect(r.SpanAttributes).toMatchObject({ [ATTR.httpMethod]: r.SpanName.split(' ')[0], [ATTR.urlTemplate]: r.SpanName.split(' ')[1] });
      expect((r.SpanAttributes as Record<string, string>)[ATTR.httpStatus]).toMatch(/^2\d\d$/);
    }
    expect(new Set(rows.map((r) => r.TraceId)).size).toBe(1);

    const logs = sandbox.otlp?.store.rows('otel_logs') ?? [];
    expect(logs.some((l) => l.TraceId === run?.TraceId && l.SpanId !== '')).toBe(true);

    const everything = JSON.stringify([rows, logs]);
    // A boolean, not toContain: a failure would print the leaked text in full.
    expect(everything.includes(CANARY_KEY), 'the API key stored').toBe(false);

    const res = await fetch(`${sandbox.url}/api/v2/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CANARY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sourceId: DEMO_IDS.traces,
        where: `SpanName:${SPAN.run} AND SpanAttributes.obsync.target:traced`,
        select: 'SpanName, TraceId',
        startTime: new Date(Date.now() - 3_600_000).toISOString(),
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { TraceId?: string }[] }).data.map((r) => r.TraceId)).toEqual([run?.TraceId]);

    // Again, nothing to change: an unchanged object's step sends nothing and has no span; the apply span counts it.
    const again = await runCli(['apply', '--auto-approve'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    const later = spans().filter((r) => r.TraceId !== run?.TraceId);
    expect(later.find((r) => r.SpanName === SPAN.apply)?.SpanAttributes).toMatchObject({ [ATTR.changes]: '0', [ATTR.unchanged]: '1' });
    expect(later.filter((r) => r.SpanName === SPAN.applyStep)).toEqual([]);
  });
});
