/** The bench's manifests: N dashboards of three tiles, each with one alert on its first tile. */
import type { DesiredResource } from '../src/core/resource.js';
import { alertSpecSchema } from '../src/kinds/alert/schema.js';
import { dashboardSpecSchema } from '../src/kinds/dashboard/schema.js';

export function benchManifests(n: number): DesiredResource[] {
  const out: DesiredResource[] = [];
  for (let i = 0; i < n; i++) {
    const spec = dashboardSpecSchema.parse({
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
    out.push({
      kind: 'Dashboard',
      name: `b${i}`,
      address: `Dashboard/b${i}`,
      labels: {},
      spec,
      source: { file: 'bench', line: 1, col: 1 },
    });
    const alert = alertSpecSchema.parse({
      dashboard: `b${i}`,
      tile: 'lat',
      threshold: 100,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhook: 'ops-slack' },
      name: `b${i} slow`,
    });
    out.push({ kind: 'Alert', name: `a${i}`, address: `Alert/a${i}`, labels: {}, spec: alert, source: { file: 'bench', line: 1, col: 1 } });
  }
  return out;
}

/** The same manifests with the first `k` dashboards changed (one more tag each). */
export function withChangedDashboards(desired: readonly DesiredResource[], k: number): DesiredResource[] {
  let left = k;
  return desired.map((r) => {
    if (r.kind !== 'Dashboard' || left <= 0) return r;
    left -= 1;
    return { ...r, spec: { ...(r.spec as object), tags: ['bench', 'changed'] } };
  });
}

/** `benchManifests(n)` as YAML documents, for the daemon bench (one file, 2n documents). */
export function benchManifestsYaml(n: number): string {
  const docs: string[] = [];
  for (let i = 0; i < n; i++) {
    docs.push(`apiVersion: obsync/v1
kind: Dashboard
metadata: {name: b${i}}
spec:
  name: Bench ${i}
  tags: [bench]
  tiles:
    - {key: lat, name: Latency, x: 0, y: 0, w: 8, h: 4, config: {displayType: line, source: Traces, select: [{aggFn: avg, valueExpression: Duration}]}}
    - {key: err, name: Errors, x: 8, y: 0, w: 8, h: 4, config: {displayType: number, source: Logs, select: [{aggFn: count, where: "level:error"}]}}
    - {key: tbl, name: Endpoints, x: 16, y: 0, w: 8, h: 4, config: {displayType: table, source: Traces, select: [{aggFn: count}], groupBy: SpanName}}
`);
    docs.push(`apiVersion: obsync/v1
kind: Alert
metadata: {name: a${i}}
spec: {dashboard: b${i}, tile: lat, threshold: 100, thresholdType: above, interval: 5m, channel: {type: webhook, webhook: ops-slack}, name: b${i} slow}
`);
  }
  return docs.join('---\n');
}

/** The API key of the bench sandbox's i-th further team (1-based): its own objects and its own rate limit. */
export function teamKey(i: number): string {
  return `bench-team-${i}`;
}
