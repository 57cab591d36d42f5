/** docs/reference/metrics.md: every metric the daemon serves at /metrics, from its prom-client registry. */
import type { Registry } from 'prom-client';
import { cell, code, generatedHeader } from './markdown.js';

interface MetricInfo {
  name: string;
  type: string;
  help: string;
  labels: readonly string[];
}

export async function metricsReferencePage(registry: Registry): Promise<string> {
  const metrics: MetricInfo[] = (await registry.getMetricsAsJSON()).map((m) => ({
    name: m.name,
    type: String(m.type),
    help: m.help,
    labels: labelNamesOf(registry, m.name),
  }));
  const ours = metrics.filter((m) => m.name.startsWith('obsync_'));
  const runtime = metrics.filter((m) => !m.name.startsWith('obsync_')).map((m) => code(m.name));
  const row = (m: MetricInfo) => `| ${code(m.name)} | ${m.type} | ${m.labels.map(code).join(', ') || '–'} | ${cell(m.help)} |`;
  return `${[
    generatedHeader('the daemon\u2019s metrics registry (src/daemon/metrics.ts)'),
    '',
    '# Metrics',
    '',
    '`obsync run` serves these at `/metrics` in the Prometheus text format (checked by `promtool`).',
    'A metric with the `target` label has one series per target; the others are one per process.',
    '',
    '| metric | type | labels | meaning |',
    '| --- | --- | --- | --- |',
    ...ours.map(row),
    '',
    `Node.js runtime metrics (prom-client's defaults): ${runtime.join(', ')}.`,
  ].join('\n')}\n`;
}

/** prom-client keeps each metric's declared label names on the metric object, not in its JSON. */
function labelNamesOf(registry: Registry, name: string): readonly string[] {
  const metric = registry.getSingleMetric(name) as unknown as { labelNames?: readonly string[] } | undefined;
  return metric?.labelNames ?? [];
}
