import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AlertSpec } from '../kinds/alert/schema.js';
import { ParsedFiles } from './load.js';
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
      `${file}:5:9 spec.name missing-var: \${var:threshold}: target 'staging' has no var 'threshold' — did you mean 'treshold'?; declare it under that target's vars in obsync.yaml`,
      `${file}:8:14 spec.threshold missing-var: \${var:threshold}: target 'staging' has no var 'threshold' — did you mean 'treshold'?; declare it under that target's vars in obsync.yaml`,
    ]);
    const [none] = loadTargetTrees([tree('', undefined, undefined)], { env: {} });
    expect(none?.diagnostics[0]?.message).toBe(
      '${var:threshold} has no value here: vars are declared per target in obsync.yaml (targets[].vars) and used in the manifests of that target',
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
          "target 'staging' (self-hosted) cannot manage Pipe objects: Pipe/orders is served by hosted targets only — move its file to the manifests of hosted targets (targets[].manifests in obsync.yaml)",
        file,
        line: 1,
        col: 1,
        address: 'Pipe/orders',
      },
    ]);
    expect(production?.diagnostics).toEqual([]);
    expect(production?.resources.map((r) => r.address)).toEqual(['Pipe/orders']);
  });

  it('parses a file once for every target, and a target never sees another one its values', () => {
    const file = write('base/alert.yaml', alert);
    const parsed = new ParsedFiles();
    const first = parsed.parse(file, alert);
    expect(parsed.parse(file, alert).docs[0]).not.toBe(first.docs[0]);
    const a = loadTargetTree(tree('a', 'hosted', { threshold: '1', webhook: 'w' }), { env: {}, parsed });
    const b = loadTargetTree(tree('b', 'hosted', { threshold: '2', webhook: 'w' }), { env: {}, parsed });
    expect([(a.resources[0]?.spec as AlertSpec).threshold, (b.resources[0]?.spec as AlertSpec).threshold]).toEqual([1, 2]);
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
      "1 kind-not-served: target 'staging' (self-hosted) cannot manage Pipe objects: Pipe/orders is served by hosted targets only — move its file to the manifests of hosted targets (targets[].manifests in obsync.yaml)",
      "1 kind-not-served: target 'qa' (self-hosted) cannot manage Pipe objects: Pipe/orders is served by hosted targets only — move its file to the manifests of hosted targets (targets[].manifests in obsync.yaml)",
    ]);
  });
});
