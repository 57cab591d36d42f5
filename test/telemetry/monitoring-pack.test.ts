/**
 * deploy/monitoring (issue 45 item 3): `obsync validate` accepts the pack, and it watches names obsync
 * exports — the span names of src/telemetry/names.ts and the metric names of the daemon's registry.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { exceedsThreshold } from '../../src/kinds/alert/checker.js';
import { loadManifests } from '../../src/manifests/load.js';
import { SPAN } from '../../src/telemetry/index.js';

const pack = join(dirname(fileURLToPath(import.meta.url)), '../../deploy/monitoring');

describe('the monitoring pack', () => {
  const { resources, diagnostics } = loadManifests([pack], { env: {} });

  it('validates with zero diagnostics: a dashboard and the three alerts on it', () => {
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => r.address).sort()).toEqual([
      'Alert/obsync-daemon-stuck',
      'Alert/obsync-repeated-drift',
      'Alert/obsync-target-failing',
      'Dashboard/obsync',
    ]);
  });

  it('queries only span names and metric names obsync exports', () => {
    const text = JSON.stringify(resources.map((r) => r.spec));
    const spans = [...text.matchAll(/SpanName:([\w.]+)/g)].map((m) => m[1]);
    const metrics = [...text.matchAll(/"metricName":"([\w.]+)"/g)].map((m) => m[1]);
    expect(spans.length).toBeGreaterThan(0);
    expect(metrics.length).toBeGreaterThan(0);
    for (const name of spans) expect(Object.values(SPAN)).toContain(name);
    const exported = new DaemonMetrics('test').registry.getMetricsAsArray().map((m) => m.name);
    for (const name of metrics) expect(exported).toContain(name);
  });

  it('fires on a window without data only where silence is the alarm (a stuck daemon): the checker counts it as 0', () => {
    const onSilence = resources
      .filter((r) => r.kind === 'Alert')
      .filter((r) => exceedsThreshold(r.spec as { thresholdType: string; threshold: number }, 0))
      .map((r) => r.address);
    expect(onSilence).toEqual(['Alert/obsync-daemon-stuck']);
  });
});
