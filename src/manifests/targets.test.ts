import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AlertSpec } from '../kinds/alert/schema.js';
import { LoadedFiles } from './loaded-files.js';
import { loadTargetTree, loadTargetTrees, mergeTargetDiagnostics, type TargetTree } from './targets.js';

let dir: string;
const write = (rel: string, text: string) => {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};

const alert = `apiVersion: obsync/v1
kind: Alert
metadata: {name: errors}
spec:
  name: Errors above \${var:threshold}
  savedSearch: Errors
  interval: 5m
  threshold: \${var:threshold}
  thresholdType: above
  channel: {type: webhook, webhook: "\${var:webhook}"}
`;
const pipe = `apiVersion: obsync/v1
kind: Pipe
metadata: {name: orders}
spec:
  name: orders-postgres
  state: running
`;

const tree = (target: string, api: TargetTree['api'], vars: TargetTree['vars'], paths = [join(dir, 'base')]): TargetTree => ({
  target,
  api,
  paths,
  vars,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-trees-'));
});

describe('loadTargetTrees', () => {
  it('interpolates the same files with each target its own vars, typed by the field', () => {
    write('base/alert.yaml', alert);
    const [staging, production] = loadTargetTrees(
      [
        tree('staging', 'self-hosted', { threshold: '900', webhook: 'staging-alerts' }),
        tree('production', 'hosted', { threshold: '500', webhook: 'ops-pager' }),
      ],
      { env: {} },
    );
    expect(staging?.diagnostics).toEqual([]);
    expect(production?.diagnostics).toEqual([]);
    const spec = (r: typeof staging) => r?.resources[0]?.spec as AlertSpec;
    expect([spec(staging).threshold, spec(staging).name, spec(staging).channel]).toEqual([
      900,
      'Errors above 900',
      { type: 'webhook', webhook: 'staging-alerts' },
    ]);
    expect([spec(production).threshold, spec(production).name, spec(production).channel]).toEqual([
      500,
      'Errors above 500',
      { type: 'webhook', webhook: 'ops-pager' },
    ]);
  });

  it('reports a missing var at its position, naming the target and the closest var', () => {
    const file = write('base/alert.yaml', alert);
    const [load] = loadTargetTrees([tree('staging', 'self-hosted', { treshold: '900', webhook: 'w' })], { env: {} });
    expect(load?.resources).toEqual([]);
    expect(load?.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.path} ${d.code}: ${d.message}`)).toEqual([
      `${file}:5:9 spec.name missing-var: \${var:threshold}: target 'staging' has no var 'threshold' — did you mean 'treshold'?; ` +
        `declare it under that target's vars in obsync.yaml`,
      `${file}:8:14 spec.threshold missing-var: \${var:threshold}: target 'staging' has no var 'threshold' — did you mean ` +
        `'treshold'?; declare it under that target's vars in obsync.yaml`,
    ]);
    const [none] = loadTargetTrees([tree('', undefined, undefined)], { env: {} });
    expect(none?.diagnostics[0]?.message).toBe(
      '${var:threshold} has no value here: vars are declared per target in obsync.yaml (targets[].vars) and used in the manifests ' +
        'of that target',
    );
  });

  it('refuses a kind the target variant cannot manage, naming target, kind and file', () => {
    const file = write('base/pipe.yaml', pipe);
    const [staging, production] = loadTargetTrees([tree('staging', 'self-hosted', {}), tree('production', 'hosted', {})], { env: {} });
    expect(staging?.resources).toEqual([]);
    expect(staging?.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'kind-not-served',
        message:
          "target 'staging' (self-hosted) cannot manage Pipe objects: Pipe/orders is served by hosted targets only — move its " +
          'file to the manifests of hosted targets (targets[].manifests in obsync.yaml)',
        file,
        line: 1,
        col: 1,
        address: 'Pipe/orders',
      },
    ]);
    expect(production?.diagnostics).toEqual([]);
    expect(production?.resources.map((r) => r.address)).toEqual(['Pipe/orders']);
  });

  it(
    'loads a file without interpolation once for every target and run, and one with it per target: a target never sees another one ' +
      'its values',
    () => {
      write('base/alert.yaml', alert);
      const pipeFile = write('base/pipe.yaml', pipe);
      const loaded = new LoadedFiles();
      const load = (target: string, threshold: string) =>
        loadTargetTree(tree(target, 'hosted', { threshold, webhook: 'w' }), { env: {}, loaded });
      const a = load('a', '1');
      const b = load('b', '2');
      const of = (l: typeof a, kind: string) => l.resources.find((r) => r.kind === kind);
      expect([(of(a, 'Alert')?.spec as AlertSpec).threshold, (of(b, 'Alert')?.spec as AlertSpec).threshold]).toEqual([1, 2]);
      // The plain file: one load, the same (frozen) resource for both targets and for the next run.
      expect(of(b, 'Pipe')).toBe(of(a, 'Pipe'));
      expect(of(load('a', '1'), 'Pipe')).toBe(of(a, 'Pipe'));
      expect(Object.isFrozen(of(a, 'Pipe')?.spec)).toBe(true);
      expect(loaded.size).toBe(1);
      // A changed file is loaded again; a removed one is forgotten.
      write('base/pipe.yaml', pipe.replace('orders-postgres', 'orders-pg'));
      expect((of(load('a', '1'), 'Pipe')?.spec as { name: string }).name).toBe('orders-pg');
      rmSync(pipeFile);
      expect(of(load('a', '1'), 'Pipe')).toBeUndefined();
      expect(loaded.size).toBe(0);
    },
  );

  it('places a finding across documents in a kept file at its line and column, run after run', () => {
    write(
      'base/alerts.yaml',
      `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: checkout}
spec:
  name: Checkout
  tiles:
    - {key: p99-latency, name: p99 latency, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown}}
---
apiVersion: obsync/v1
kind: Alert
metadata: {name: slow}
spec:
  dashboard: checkuot
  tile: p99-latency
  interval: 5m
  threshold: 1
  thresholdType: above
  channel: {type: webhook, webhook: ops-slack}
`,
    );
    const loaded = new LoadedFiles();
    const findings = () =>
      loadTargetTree(tree('a', 'self-hosted', {}), { env: {}, loaded }).diagnostics.map((d) => [d.code, d.line, d.col, d.path]);
    const first = findings();
    expect(first).toEqual([['unknown-dashboard', 13, 3, 'spec.dashboard']]);
    expect(findings()).toEqual(first);
    expect(loaded.size).toBe(1);
  });
});

describe('mergeTargetDiagnostics', () => {
  it('shows a problem of a shared file once, and names the targets of one only some have', () => {
    write('base/alert.yaml', alert.replace('interval: 5m', 'interval: 5 minutes'));
    write('base/pipe.yaml', pipe);
    const loads = loadTargetTrees(
      [
        tree('staging', 'self-hosted', { threshold: 'high', webhook: 'w' }),
        tree('qa', 'self-hosted', { threshold: '3', webhook: 'w' }),
        tree('production', 'hosted', { threshold: '5', webhook: 'w' }),
      ],
      { env: {} },
    );
    const merged = mergeTargetDiagnostics(loads).map((d) => `${d.line} ${d.code}: ${d.message}`);
    expect(mergeTargetDiagnostics(loads).filter((d) => d.path === 'spec.interval')).toHaveLength(1);
    expect(merged).toContain("8 invalid-type: expected number, got 'high' (target 'staging')");
    expect(merged.filter((m) => m.includes('kind-not-served'))).toEqual([
      "1 kind-not-served: target 'staging' (self-hosted) cannot manage Pipe objects: Pipe/orders is served by hosted targets only " +
        '— move its file to the manifests of hosted targets (targets[].manifests in obsync.yaml)',
      "1 kind-not-served: target 'qa' (self-hosted) cannot manage Pipe objects: Pipe/orders is served by hosted targets only — " +
        'move its file to the manifests of hosted targets (targets[].manifests in obsync.yaml)',
    ]);
  });
});
