/**
 * /metrics as Prometheus' own checker reads it (issue 30): `promtool check metrics` (Debian's
 * prometheus package) accepts what a running daemon of two targets serves, and docs/daemon.md says
 * truly which metrics carry the `target` label and which are one per process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonMetrics, SUMMED_GAUGES } from '../../src/daemon/metrics.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt } from '../support/cli.js';
import { startDaemon, type RunningDaemon } from '../support/daemon.js';
import { missingTools, TOOLS } from '../support/tools.js';
import { until } from '../support/wait.js';

/** promtool's tests are skipped off CI without it; in CI its absence fails the file. */
const missing = missingTools(TOOLS.promtool);
let sandbox: SandboxHandle;
let dir: string;
let daemon: RunningDaemon | undefined;

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-promtool-'));
  const c = sandbox.credentials;
  writeFileSync(
    join(dir, 'dash.yaml'),
    'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: promtool}\nspec: {name: Promtool, tiles: []}\n',
  );
  writeFileSync(
    join(dir, 'obsync.yaml'),
    [
      'apiVersion: obsync/v1',
      'kind: Config',
      'manifests: [dash.yaml]',
      'targets:',
      `  - {name: sh, variant: self-hosted, baseUrl: "${sandbox.url}", credentials: {apiKey: "${c.apiKey}"}}`,
      `  - {name: ho, variant: hosted, baseUrl: "${sandbox.url}", organizationId: ${c.organizationId}, serviceId: ${c.serviceId}, ` +
        `credentials: {keyId: ${c.keyId}, keySecret: ${c.keySecret}}}`,
      '',
    ].join('\n'),
  );
  daemon = await startDaemon(dir, ['--no-watch']);
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function promtool(text: string): { status: number | null; output: string } {
  const res = spawnSync('promtool', ['check', 'metrics'], { input: text });
  if (res.error) throw res.error;
  return { status: res.status, output: `${res.stdout.toString()}${res.stderr.toString()}` };
}

/** The metric families of a text exposition, from its `# TYPE` lines. */
function familyNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map(([, name]) => name ?? '');
}

describe.skipIf(missing !== null)("the daemon's /metrics", () => {
  it('is accepted by promtool check metrics after both targets ran', async () => {
    const metrics = () => fetch(`${daemon?.url}/metrics`).then((r) => r.text());
    const text = await until(
      'a run of each target',
      async () => {
        const t = await metrics();
        return ['sh', 'ho'].every((target) => t.includes(`obsync_reconcile_total{target="${target}",result="success"}`)) ? t : undefined;
      },
      { context: () => daemon?.output() ?? '' },
    );
    expect(text).toMatch(/^obsync_api_requests_total\{target="ho",method="GET",code="200"\} \d+$/m);
    const checked = promtool(text);
    expect(checked.output).toBe('');
    expect(checked.status).toBe(0);
    for (const name of SUMMED_GAUGES) expect(text).not.toContain(`${name} `);
    expect(text).toMatch(/^nodejs_active_handles\{type="\w+"\} \d+$/m);
  });

  it(
    "answers OpenMetrics to Prometheus' Accept header, which Prometheus' " +
      'own OpenMetrics parser reads; the text format stays as it was',
    async () => {
      const accept =
        'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;' +
        'q=0.3,*/*;q=0.2';
      const res = await fetch(`${daemon?.url}/metrics`, { headers: { accept } });
      expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
      expect(res.headers.get('vary')).toBe('Accept');
      const om = await res.text();
      expect(om.endsWith('\n# EOF\n')).toBe(true);
      expect(om).toMatch(/^# TYPE obsync_reconcile counter$/m);
      expect(om).toMatch(/^obsync_reconcile_total\{target="sh",result="success"\} \d+$/m);
      // promtool reads OpenMetrics when it imports samples; an import needs a timestamp on each sample.
      const stamped = om.replace(/^([^#\n].*)$/gm, '$1 1700000000');
      const work = mkdtempSync(join(tmpdir(), 'obsync-openmetrics-'));
      try {
        writeFileSync(join(work, 'metrics.om'), stamped);
        const read = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'metrics.om'), join(work, 'blocks')]);
        expect(`${read.stdout.toString()}${read.stderr.toString()}`).not.toMatch(/error|expected/i);
        expect(read.status).toBe(0);
        // The same input cut short (no # EOF) is refused: the parser is strict.
        writeFileSync(join(work, 'cut.om'), stamped.replace('# EOF\n', ''));
        expect(
          spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(work, 'cut.om'), join(work, 'cut')]).status,
        ).not.toBe(0);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
      // After an OpenMetrics scrape the text format still names its counters *_total, and promtool still accepts it.
      const plain = await fetch(`${daemon?.url}/metrics`);
      expect(plain.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await plain.text();
      expect(text).toMatch(/^# TYPE obsync_reconcile_total counter$/m);
      expect(promtool(text)).toEqual({ status: 0, output: '' });
      const series = (body: string) => new Set([...body.matchAll(/^(obsync_\w+)\{/gm)].map(([, name]) => name));
      expect(series(om)).toEqual(series(text));
    },
  );

  it("is refused by promtool with prom-client's default *_total gauges (what it refuses, so the check is real)", () => {
    const bad =
      '# HELP nodejs_active_handles_total Total number of active handles.\n# TYPE nodejs_active_handles_total ' +
      'gauge\nnodejs_active_handles_total 3\n';
    const checked = promtool(bad);
    expect(checked.status).not.toBe(0);
    expect(checked.output).toContain('non-counter metrics should not have "_total" suffix');
  });
});

describe('docs/daemon.md on /metrics', () => {
  const readme = readFileSync('docs/daemon.md', 'utf8');
  const start = readme.indexOf('`/metrics` (Prometheus');
  const paragraph = readme.slice(start, readme.indexOf('\n\n', start));
  const [withTarget = '', perProcess = ''] = paragraph.split('One per process');
  /** `name{labels}` in backticks → name → labels. */
  const listed = (text: string) =>
    new Map([...text.matchAll(/`(obsync_\w+)(?:\{([^}]*)\})?`/g)].map(([, name, labels]) => [name ?? '', labels?.split(',') ?? []]));

  it('lists every obsync metric with its labels, the target label exactly where it is', async () => {
    expect(start).toBeGreaterThan(0);
    const metrics = new DaemonMetrics('test');
    const served = familyNames(await metrics.text());
    /** The label names each metric was declared with (prom-client keeps them on the metric). */
    const labels = (name: string) => (metrics.registry.getSingleMetric(name) as unknown as { labelNames: string[] }).labelNames;
    const ours = served.filter((n) => n.startsWith('obsync_'));
    const documented = new Map([...listed(withTarget), ...listed(perProcess)]);
    expect([...documented.keys()].sort()).toEqual(ours.sort());
    for (const name of ours) expect(documented.get(name), name).toEqual(labels(name));
    for (const name of listed(withTarget).keys()) expect(documented.get(name), name).toContain('target');
    for (const name of listed(perProcess).keys()) expect(documented.get(name), name).not.toContain('target');
    for (const name of served) if (!name.startsWith('obsync_')) expect(name).toMatch(/^(process|nodejs)_/);
  });
});
