/**
 * Issue 45: request spans follow OpenTelemetry's HTTP client conventions without false errors. A
 * plan whose look-up of an owned object hits the 404 it expects (the object was deleted by hand:
 * absent, planned as usual) exports no Error span; a 5xx marks its request span Error with
 * `error.type` set to the status. In-process: the sandbox's API and OTLP receiver on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { createServicePort } from '../../src/remote/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { sandboxTarget } from '../../src/sandbox/target.js';
import { ATTR, SPAN, startTelemetry } from '../../src/telemetry/index.js';

const GONE = '65f0c0ffee0123456789abcd';
let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, otlpPort: 0, rateLimit: 'off' });
});

afterAll(async () => {
  await sandbox.close();
});

type Row = { TraceId: string; SpanName: string; StatusCode: string; SpanAttributes: Record<string, string> };
const traceOf = (target: string): Row[] => {
  const rows = (sandbox.otlp?.store.rows('otel_traces') ?? []) as Row[];
  const run = rows.find((r) => r.SpanName === SPAN.run && r.SpanAttributes[ATTR.target] === target);
  return rows.filter((r) => r.TraceId === run?.TraceId);
};

/** A plan of `target` (nothing declared, one owned dashboard the lists do not hold) inside a run span, exported. */
async function tracedPlan(target: string): Promise<unknown> {
  const telemetry = await startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: sandbox.otlp?.url ?? '' }, { version: '0.0.0-test' });
  const settings = { name: target, concurrency: 2, timeoutMs: 5_000, retries: 0, pacing: { limit: 0, windowMs: 1_000 }, embedded: false };
  const port = createServicePort(sandboxTarget('self-hosted', sandbox, settings), { telemetry });
  const inventory = memoryInventory(target);
  await inventory.put({
    kind: 'Dashboard',
    name: 'gone',
    id: GONE,
    status: 'owned',
    naturalKey: 'Gone',
    updatedAt: new Date().toISOString(),
  });
  try {
    return await telemetry.span(SPAN.run, { [ATTR.target]: target }, () =>
      makePlan({ port, inventory, desired: [], selection: SELECT_ALL, prune: false, maxDeletes: 0, telemetry }).then(
        () => 'planned',
        (err: unknown) => err,
      ),
    );
  } finally {
    await port.close();
    await telemetry.shutdown();
  }
}

describe('request spans and their status', () => {
  it('a look-up that hits the 404 it expects exports no Error span', async () => {
    expect(await tracedPlan('expected-404')).toBe('planned');
    const rows = traceOf('expected-404');
    const lookUp = rows.find((r) => r.SpanName === 'GET /api/v2/dashboards/{id}');
    expect(lookUp?.SpanAttributes).toMatchObject({ [ATTR.httpStatus]: '404', [ATTR.urlTemplate]: '/api/v2/dashboards/{id}' });
    expect(lookUp?.SpanAttributes[ATTR.errorType]).toBeUndefined();
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.filter((r) => r.StatusCode === 'Error').map((r) => r.SpanName)).toEqual([]);
  });

  it('a 5xx marks its request span Error with error.type', async () => {
    sandbox.faults.set({ error5xx: 1, seed: 1 });
    try {
      expect(await tracedPlan('failing-5xx')).toBeInstanceOf(Error);
    } finally {
      sandbox.faults.clear();
    }
    const failed = traceOf('failing-5xx').filter((r) => r.StatusCode === 'Error');
    const request = failed.find((r) => r.SpanName.startsWith('GET /api/v2/'));
    expect(request?.SpanAttributes).toMatchObject({ [ATTR.httpStatus]: '503', [ATTR.errorType]: '503' });
    expect(failed.map((r) => r.SpanName)).toContain(SPAN.readLive);
  });
});
