/**
 * The bench's estate: N dashboards of three tiles, each with one alert on its first tile, and a
 * few objects of every other kind the variant manages (webhooks, sources, saved searches with an
 * alert each, connections on self-hosted, the demo seed's pipes on hosted), so that every kind's
 * routes, reads and comparisons are in every measure. One list of documents gives both the
 * resources (as the loader makes them, digest included) and the YAML the daemon benches read.
 */
import type { Variant } from '../src/core/ports.js';
import { addressOf, type Kind } from '../src/core/plan.js';
import type { DesiredResource } from '../src/core/resource.js';
import { specSchemas } from '../src/kinds/manifest.js';
import { documentDigest } from '../src/manifests/document.js';
import { LIMITS } from '../src/manifests/parse.js';
import { DEMO_IDS } from '../src/sandbox/domain/seed.js';

/** Objects of each kind besides the N dashboards and N alerts. */
export const OTHERS_PER_KIND = 3;

interface Document {
  apiVersion: 'obsync/v1';
  kind: Kind;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

const doc = (kind: Kind, name: string, spec: Record<string, unknown>): Document => ({
  apiVersion: 'obsync/v1',
  kind,
  metadata: { name },
  spec,
});

function dashboard(i: number): Document {
  return doc('Dashboard', `b${i}`, {
    name: `Bench ${i}`,
    tags: ['bench'],
    tiles: [
      {
        key: 'lat',
        name: 'Latency',
        x: 0,
        y: 0,
        w: 8,
        h: 4,
        config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'avg', valueExpression: 'Duration' }] },
      },
      {
        key: 'err',
        name: 'Errors',
        x: 8,
        y: 0,
        w: 8,
        h: 4,
        config: { displayType: 'number', source: 'Logs', select: [{ aggFn: 'count', where: 'level:error' }] },
      },
      {
        key: 'tbl',
        name: 'Endpoints',
        x: 16,
        y: 0,
        w: 8,
        h: 4,
        config: { displayType: 'table', source: 'Traces', select: [{ aggFn: 'count' }], groupBy: 'SpanName' },
      },
    ],
  });
}

function alert(i: number): Document {
  return doc('Alert', `a${i}`, {
    dashboard: `b${i}`,
    tile: 'lat',
    threshold: 100,
    thresholdType: 'above',
    interval: '5m',
    channel: { type: 'webhook', webhook: 'ops-slack' },
    name: `b${i} slow`,
  });
}

/** Webhooks, sources (on a connection of their own on self-hosted), saved searches with an alert each, pipes. */
function others(variant: Variant): Document[] {
  const out: Document[] = [];
  for (let i = 0; i < OTHERS_PER_KIND; i++) {
    out.push(doc('Webhook', `wh${i}`, { service: 'generic', name: `Bench hook ${i}`, url: `https://example.com/hooks/bench-${i}` }));
    if (variant === 'self-hosted')
      out.push(doc('Connection', `conn${i}`, { name: `Bench ClickHouse ${i}`, host: `http://clickhouse-${i}:8123`, username: 'bench' }));
    out.push(
      doc('Source', `src${i}`, {
        kind: 'log',
        name: `Bench logs ${i}`,
        connection: variant === 'self-hosted' ? `conn${i}` : { id: DEMO_IDS.connection },
        from: { databaseName: 'default', tableName: `bench_logs_${i}` },
        timestampValueExpression: 'TimestampTime',
        defaultTableSelectExpression: 'Timestamp, ServiceName, Body',
        serviceNameExpression: 'ServiceName',
        bodyExpression: 'Body',
        traceSource: 'Traces',
      }),
    );
    out.push(doc('SavedSearch', `ss${i}`, { name: `Bench errors ${i}`, source: `src${i}`, where: 'SeverityText:error', tags: ['bench'] }));
    out.push(
      doc('Alert', `ssa${i}`, {
        savedSearch: `ss${i}`,
        interval: '15m',
        threshold: 10,
        thresholdType: 'above',
        channel: { type: 'webhook', webhook: `wh${i}` },
        name: `Bench errors ${i} above 10`,
      }),
    );
  }
  // Pipes are never created: the hosted demo seed's are managed as they are (settings owned).
  if (variant === 'hosted') out.push(doc('Pipe', 'clicks-kinesis', { name: 'clicks-kinesis', state: 'running' }));
  return out;
}

/** The estate's documents: the other kinds first (dashboards and alerts refer to none of them). */
export function benchDocuments(n: number, variant: Variant): Document[] {
  const out = others(variant);
  for (let i = 0; i < n; i++) out.push(dashboard(i), alert(i));
  return out;
}

/** The estate's resources, as the manifest loader makes them from `benchManifestsYaml`. */
export function benchManifests(n: number, variant: Variant): DesiredResource[] {
  return benchDocuments(n, variant).map(resourceOf);
}

export function resourceOf(d: Document): DesiredResource {
  return {
    kind: d.kind,
    name: d.metadata.name,
    address: addressOf(d.kind, d.metadata.name),
    labels: {},
    spec: specSchemas[d.kind].parse(d.spec),
    source: { file: 'bench', line: 1, col: 1 },
    digest: documentDigest(d),
  };
}

/** The same manifests with the first `k` dashboards changed (one more tag each). */
export function withChangedDashboards(desired: readonly DesiredResource[], k: number): DesiredResource[] {
  let left = k;
  return desired.map((r) => {
    if (r.kind !== 'Dashboard' || left <= 0) return r;
    left -= 1;
    return {
      kind: r.kind,
      name: r.name,
      address: r.address,
      labels: r.labels,
      spec: { ...(r.spec as object), tags: ['bench', 'changed'] },
      source: r.source,
    };
  });
}

/** `benchManifests(n)` as YAML files (name → text; each document in JSON, which is YAML), within the loader's limits per file. */
export function benchManifestsYaml(n: number, variant: Variant): Map<string, string> {
  const docs = benchDocuments(n, variant).map((d) => `${JSON.stringify(d)}\n`);
  const files = new Map<string, string>();
  for (let i = 0; i < docs.length; i += LIMITS.documents)
    files.set(`bench-${String(i / LIMITS.documents).padStart(4, '0')}.yaml`, docs.slice(i, i + LIMITS.documents).join('---\n'));
  return files;
}

/** The API key of the bench sandbox's i-th further team (1-based): its own objects and its own rate limit. */
export function teamKey(i: number): string {
  return `bench-team-${i}`;
}
