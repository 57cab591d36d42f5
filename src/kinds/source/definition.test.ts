import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../core/resource.js';
import type { JsonObject } from '../../core/wire.js';
import { diffCanonical } from '../../planner/diff.js';
import type { LiveView } from '../kind.js';
import type { RefContext, TokenContext } from '../refs.js';
import { source } from './definition.js';
import type { SourceLive } from './model.js';
import { sourceSpecSchema } from './schema.js';

const IDS: Record<string, string> = { main: 'c-main', traces: 's-traces' };
const refs: RefContext = {
  ref: (_kind, ref) =>
    typeof ref === 'string' && IDS[ref]
      ? { ok: true, token: ref, id: IDS[ref] }
      : typeof ref === 'object'
        ? { ok: true, token: { id: ref.id }, id: ref.id }
        : { ok: false, error: `'${String(ref)}' does not exist on the target` },
  part: () => ({ ok: false, error: 'no parts' }),
  wire: (kind, ref) => (typeof ref === 'string' ? { $ref: `${kind}/${ref}` } : ref.id),
};
const tokens: TokenContext = {
  token: (_kind, id) => Object.keys(IDS).find((k) => IDS[k] === id) ?? { id },
  partToken: (_k, _p, id) => ({ id }),
};
const view: LiveView = { tokens, parts: undefined, expected: null, secrets: {}, fingerprint: () => '' };

function res(spec: unknown): DesiredResource<ReturnType<typeof sourceSpecSchema.parse>> {
  return {
    kind: 'Source',
    name: 'logs',
    address: 'Source/logs',
    labels: {},
    spec: sourceSpecSchema.parse(spec),
    source: { file: 's.yaml', line: 1, col: 1 },
  };
}

const logSpec = {
  kind: 'log',
  name: 'Logs',
  connection: 'main',
  from: { databaseName: 'default', tableName: 'otel_logs' },
  timestampValueExpression: 'TimestampTime',
  defaultTableSelectExpression: 'Timestamp, Body',
  traceSource: 'traces',
  materializedViews: [
    {
      databaseName: 'default',
      tableName: 'mv',
      dimensionColumns: 'ServiceName',
      minGranularity: '1 minute',
      timestampColumn: 'Timestamp',
      aggregatedColumns: [{ aggFn: 'count', mvColumn: 'c' }],
    },
  ],
};

/** The log source as the service stores and answers it (selfhosted-api §4.3, §5 "Sources"). */
const stored: SourceLive = {
  id: 's-logs',
  name: 'Logs',
  kind: 'log',
  connection: 'c-main',
  disabled: false,
  from: { databaseName: 'default', tableName: 'otel_logs' },
  timestampValueExpression: 'TimestampTime',
  defaultTableSelectExpression: 'Timestamp, Body',
  traceSourceId: 's-traces',
  highlightedTraceAttributeExpressions: [],
  highlightedRowAttributeExpressions: [],
  materializedViews: [
    {
      databaseName: 'default',
      tableName: 'mv',
      dimensionColumns: 'ServiceName',
      minGranularity: '1m',
      timestampColumn: 'Timestamp',
      aggregatedColumns: [{ aggFn: 'count', mvColumn: 'c' }],
    },
  ],
  querySettings: [],
};

describe('source', () => {
  it("compares equal to the service's answer: defaults, short granularities, links and the connection as names", () => {
    const want = source.canonicalDesired(res(logSpec), refs, {});
    if (!want.ok) throw new Error(want.errors.join());
    expect(diffCanonical(source.canonicalLive(stored, view), want.value)).toEqual([]);
    // The hosted API answers unset expressions as "", and fields of other kinds are not this source's.
    expect(
      diffCanonical(source.canonicalLive({ ...stored, serviceNameExpression: '', durationExpression: 'Duration' }, view), want.value),
    ).toEqual([]);
    expect(diffCanonical(source.canonicalLive({ ...stored, traceSourceId: 's-other' }, view), want.value)).toEqual([
      { path: 'traceSource', before: { id: 's-other' }, after: 'traces' },
    ]);
  });

  it("fills a trace source's duration precision as the service does", () => {
    const trace = {
      kind: 'trace',
      name: 'Traces',
      connection: 'main',
      from: { databaseName: 'default', tableName: 'otel_traces' },
      timestampValueExpression: 'Timestamp',
      defaultTableSelectExpression: 'Timestamp',
      durationExpression: 'Duration',
      traceIdExpression: 'TraceId',
      spanIdExpression: 'SpanId',
      parentSpanIdExpression: 'ParentSpanId',
      spanNameExpression: 'SpanName',
      spanKindExpression: 'SpanKind',
    };
    const want = source.canonicalDesired(res(trace), refs, {});
    if (!want.ok) throw new Error(want.errors.join());
    const { connection: _c, ...rest } = trace;
    expect(
      diffCanonical(
        source.canonicalLive({ id: 's-traces', ...rest, connection: 'c-main', durationPrecision: 3, logSourceId: null }, view),
        want.value,
      ),
    ).toEqual([]);
  });

  it('writes references as ids (placeholders for objects planned in this run), under the API names', () => {
    const body = source.createPayload?.(res(logSpec), refs, {}) as JsonObject;
    expect(body.connection).toEqual({ $ref: 'Connection/main' });
    expect(body.traceSourceId).toEqual({ $ref: 'Source/traces' });
    expect(body).not.toHaveProperty('traceSource');
    expect(source.references(res(logSpec).spec).map((r) => `${r.kind} ${r.path.join('.')}`)).toEqual([
      'Connection connection',
      'Source traceSource',
    ]);
  });

  it('manages a netflow source: the flow mappings compare equal to the answer, and the export is the minimal manifest', () => {
    const flows = {
      kind: 'netflow',
      name: 'Network flows',
      connection: 'main',
      from: { databaseName: 'default', tableName: 'flows' },
      timestampValueExpression: 'TimeReceived',
      defaultTableSelectExpression: 'TimeReceived, SrcAddr, DstAddr, Bytes',
      bytesExpression: 'Bytes',
      packetsExpression: 'Packets',
      srcAddrExpression: 'SrcAddr',
      dstAddrExpression: 'DstAddr',
      srcPortExpression: 'SrcPort',
      dstPortExpression: 'DstPort',
      protocolExpression: 'Proto',
      samplingRateExpression: 'SamplingRate',
      exporterExpression: 'ExporterName',
    };
    const want = source.canonicalDesired(res(flows), refs, {});
    if (!want.ok) throw new Error(want.errors.join());
    const { connection: _c, ...rest } = flows;
    const live: SourceLive = { id: 's-flows', ...rest, connection: 'c-main', disabled: false, inIfExpression: '', querySettings: [] };
    expect(diffCanonical(source.canonicalLive(live, view), want.value)).toEqual([]);
    // A changed mapping on the service is a difference of that field, not ignored as another kind's.
    expect(diffCanonical(source.canonicalLive({ ...live, protocolExpression: 'Protocol' }, view), want.value)).toEqual([
      { path: 'protocolExpression', before: 'Protocol', after: 'Proto' },
    ]);
    const ctx = { ref: (_k: string, id: string) => (id === 'c-main' ? 'main' : { id }) };
    const exported = source.toManifest(live, ctx as unknown as Parameters<typeof source.toManifest>[1]);
    expect(exported).toEqual(flows);
    expect(sourceSpecSchema.safeParse(exported).success).toBe(true);
  });

  it("applies the service's rules by kind", () => {
    const messages = (input: unknown) => {
      const r = sourceSpecSchema.safeParse(input);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    const base = { name: 'S', connection: 'main', from: { databaseName: 'd', tableName: '' }, timestampValueExpression: 'T' };
    expect(messages({ ...base, kind: 'metric', resourceAttributesExpression: 'R', metricTables: { gauge: '' } })).toEqual([
      'metricTables: at least one metric table must be given',
    ]);
    expect(messages({ ...base, kind: 'session', from: { databaseName: 'd', tableName: 't' } })[0]).toMatch(/^traceSource/);
    expect(messages({ ...logSpec, durationExpression: 'x' })[0]).toContain('durationExpression');
    const flows = { ...base, kind: 'netflow', from: { databaseName: 'd', tableName: 't' }, defaultTableSelectExpression: 'T' };
    const mappings = ['bytes', 'packets', 'srcAddr', 'dstAddr', 'srcPort', 'dstPort', 'protocol'].map((m) => `${m}Expression`);
    expect(messages(flows).map((m) => m.split(':')[0])).toEqual(mappings);
    const mapped = { ...flows, ...Object.fromEntries(mappings.map((m) => [m, 'x'])) };
    expect(messages(mapped)).toEqual([]);
    expect(messages({ ...mapped, bytesExpression: '' })[0]).toMatch(/^bytesExpression/);
    expect(messages({ ...mapped, metricTables: {} })[0]).toMatch(/metricTables/);
  });
});
