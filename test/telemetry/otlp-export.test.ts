/**
 * obsync's telemetry exported over OTLP/HTTP to the sandbox's receiver on loopback (issue 45): the
 * SDK set-up (src/telemetry) sends a span tree, log lines and the daemon's Prometheus metrics;
 * the receiver decodes them with the official OpenTelemetry protos (src/sandbox/otlp/proto) and
 * the sandbox's search API finds them. The canary credentials never reach what was stored.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrubber, registerSecret } from '../../src/core/scrub.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { DEMO_IDS } from '../../src/sandbox/domain/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ATTR, SPAN, startTelemetry } from '../../src/telemetry/index.js';

const CANARY = { header: 'canary-otlp-header-9c41e7', key: 'canary-otlp-api-key-5d02ab' };

let sandbox: SandboxHandle;
let putBack: () => void;
let otlpUrl = '';
/** What the pino mixin gave outside any span, then inside the plan span, run after run. */
const mixins: Record<string, string>[] = [];

beforeAll(async () => {
  putBack = scrubber.setAside();
  registerSecret(CANARY.key);
  sandbox = await startSandbox({ otlpPort: 0, rateLimit: 'off' });
  otlpUrl = sandbox.otlp?.url ?? '';
});

afterAll(async () => {
  await sandbox.close();
  putBack();
});

const stored = (table: 'otel_traces' | 'otel_logs' | 'otel_metrics') => sandbox.otlp?.store.rows(table) ?? [];
const byName = (name: string) => stored('otel_traces').filter((r) => r.SpanName === name);

/** A plan and an apply as part 2 will trace them, with a failing step whose error quotes the key. */
async function tracedRun(env: Record<string, string>, target: string) {
  const metrics = new DaemonMetrics('test');
  metrics.reconcileTotal.inc({ target, result: 'success' });
  metrics.reconcileDuration.observe({ target, result: 'success' }, 0.3);
  const telemetry = await startTelemetry(env, { version: '0.0.0-test', promRegistry: metrics.registry });
  const log = telemetry.logDestination();
  mixins.push(telemetry.logMixin());
  await telemetry.span(SPAN.command, { [ATTR.command]: 'apply' }, async () => {
    await telemetry.span(
      SPAN.run,
      { [ATTR.target]: target, [ATTR.mode]: 'apply', [ATTR.trigger]: 'manual', note: `key=${CANARY.key}` },
      async (run) => {
        mixins.push(await telemetry.span(SPAN.plan, { [ATTR.changes]: 2 }, () => Promise.resolve(telemetry.logMixin())));
        log?.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: 'planned', target, secret: encodeURIComponent(CANARY.key) })}\n`);
        await telemetry
          .span(SPAN.applyStep, { [ATTR.address]: 'Dashboard/checkout', [ATTR.action]: 'update' }, async () => {
            throw new Error(`PUT refused: the server echoed Bearer ${CANARY.key}`);
          })
          .catch(() => undefined);
        run.setAttributes({ [ATTR.result]: 'failure' });
        run.fail('1 step failed');
      },
    );
  });
  await telemetry.shutdown();
}

describe('OTLP export to the sandbox receiver', () => {
  it('sends the span tree over http/protobuf, decoded with the official protos, with no credential in it', async () => {
    await tracedRun(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${CANARY.header}`,
        OTEL_SERVICE_NAME: 'obsync-test',
        OTEL_RESOURCE_ATTRIBUTES: `deployment.environment=test,leak=${CANARY.key}`,
      },
      'proto-target',
    );
    const [command] = byName(SPAN.command);
    const [run] = byName(SPAN.run).filter((r) => (r.SpanAttributes as Record<string, string>)[ATTR.target] === 'proto-target');
    const [plan] = byName(SPAN.plan);
    const [step] = byName(SPAN.applyStep);
    expect(command?.ParentSpanId).toBe('');
    expect(run?.ParentSpanId).toBe(command?.SpanId);
    expect(plan?.ParentSpanId).toBe(run?.SpanId);
    expect(step?.ParentSpanId).toBe(run?.SpanId);
    expect(new Set([command, run, plan, step].map((s) => s?.TraceId)).size).toBe(1);
    expect(run?.ServiceName).toBe('obsync-test');
    expect(run?.SpanAttributes).toMatchObject({ [ATTR.target]: 'proto-target', [ATTR.mode]: 'apply', [ATTR.result]: 'failure' });
    expect(plan?.SpanAttributes).toMatchObject({ [ATTR.changes]: '2' });
    expect(run?.StatusCode).toBe('Error');
    expect(step?.StatusCode).toBe('Error');
    expect(step?.['Events.Name']).toEqual(['exception']);
    expect(JSON.stringify(step)).toContain('PUT refused: the server echoed (sensitive)');
    expect(Number(run?.Duration)).toBeGreaterThan(0);
    expect(run?.ResourceAttributes).toMatchObject({ 'deployment.environment': 'test', 'service.version': '0.0.0-test' });

    expect(mixins.slice(0, 2)).toEqual([{}, { trace_id: plan?.TraceId, span_id: plan?.SpanId }]);
    const [line] = stored('otel_logs').filter((r) => r.Body === 'planned');
    expect(line).toMatchObject({ SeverityText: 'INFO', SeverityNumber: 9, TraceId: run?.TraceId, SpanId: run?.SpanId });

    const names = new Set(stored('otel_metrics').map((r) => r.MetricName));
    expect(names).toContain('obsync_reconcile_total');
    expect(names).toContain('process_cpu_seconds_total');
    const duration = stored('otel_metrics').find((r) => r.MetricName === 'obsync_reconcile_duration_seconds');
    expect(duration).toMatchObject({ Type: 'Histogram', MetricUnit: 's', Count: 1 });

    const everything = JSON.stringify([stored('otel_traces'), stored('otel_logs'), stored('otel_metrics')]);
    for (const canary of Object.values(CANARY)) {
      // A boolean, not toContain: a failure would print the leaked text in full.
      expect(everything.includes(canary), `${canary} stored`).toBe(false);
      expect(everything.includes(encodeURIComponent(canary)), `${canary} stored URL-encoded`).toBe(false);
    }
  });

  it('sends http/json with gzip too', async () => {
    await tracedRun(
      { OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' },
      'json-target',
    );
    const run = byName(SPAN.run).find((r) => (r.SpanAttributes as Record<string, string>)[ATTR.target] === 'json-target');
    expect(run?.ServiceName).toBe('obsync');
    expect(run?.TraceId).toMatch(/^[0-9a-f]{32}$/);
    expect(byName(SPAN.plan).some((p) => p.ParentSpanId === run?.SpanId)).toBe(true);
  });

  it('finds the stored spans and logs through the sandbox search API', async () => {
    const search = async (sourceId: string, where: string, select: string) => {
      const res = await fetch(`${sandbox.url}/api/v2/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sourceId, where, select, startTime: new Date(Date.now() - 3_600_000).toISOString() }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: Record<string, unknown>[] }).data;
    };
    const spans = await search(
      DEMO_IDS.traces,
      `SpanName:${SPAN.run} AND SpanAttributes.obsync.target:json-target`,
      'SpanName, StatusCode, Duration',
    );
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ SpanName: SPAN.run, StatusCode: 'Error' });
    const logs = await search(DEMO_IDS.logs, 'SeverityText:INFO planned', "Body, TraceId, LogAttributes['target']");
    expect(logs.map((l) => l["LogAttributes['target']"]).sort()).toEqual(['json-target', 'proto-target']);
  });
  it('charts the stored runs through the chart series API', async () => {
    const res = await fetch(`${sandbox.url}/api/v2/charts/series`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.credentials.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        startTime: Date.now() - 3_600_000,
        endTime: Date.now() + 60_000,
        granularity: '5m',
        series: [
          { sourceId: DEMO_IDS.traces, aggFn: 'count', where: `SpanName:${SPAN.run}`, groupBy: ["SpanAttributes['obsync.target']"] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const rows = ((await res.json()) as { data: { group: string[]; 'series_0.data': string }[] }).data;
    const runs: Record<string, number> = {};
    for (const r of rows) runs[r.group[0] ?? ''] = (runs[r.group[0] ?? ''] ?? 0) + Number(r['series_0.data']);
    expect(runs).toEqual({ 'proto-target': 1, 'json-target': 1 });
  });
});

describe('the receiver answers as an OTLP/HTTP collector', () => {
  const post = (path: string, body: Buffer | string, headers: Record<string, string>) =>
    fetch(`${otlpUrl}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body) });

  it('accepts gzip JSON and answers an empty ExportTraceServiceResponse', async () => {
    const span = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      name: 'gzip-span',
      startTimeUnixNano: '1',
      endTimeUnixNano: '5',
    };
    const body = gzipSync(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }));
    const res = await post('/v1/traces', body, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({});
    expect(byName('gzip-span')[0]).toMatchObject({ TraceId: span.traceId, SpanId: span.spanId, Duration: 4 });
  });

  it('answers 415 to another content type, 400 to a malformed body, 405 to GET', async () => {
    expect((await post('/v1/traces', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    const bad = await post('/v1/logs', Buffer.from([0x0a, 0xff, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/x-protobuf');
    const badJson = await post('/v1/metrics', '{"resourceMetrics": 7}', { 'content-type': 'application/json' });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { code: number }).code).toBe(3);
    expect(
      (await post('/v1/traces', Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status,
    ).toBe(400);
    expect((await fetch(`${otlpUrl}/v1/traces`)).status).toBe(405);
  });
});
