/**
 * `obsync lint` end to end, in-process (issue 43): built-in and custom rules over a project with
 * obsync.yaml's policy: settings, a policies/ folder and a waiver; exit codes and the JSON form.
 * An apply refused by an error finding: test/engine/policy-hook.test.ts (the engine's hook, with a
 * property) and test/e2e/outputs.test.ts (`apply --output sarif` on the sandbox, nothing written).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

let dir: string;

const dashboards = (name: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: checkout}
spec: {name: ${name}, tags: [owner:payments], tiles: []}
---
apiVersion: obsync/v1
kind: Webhook
metadata:
  name: spare
  waivers: [{rule: unused-webhook, reason: "paged by hand during incidents"}]
spec: {service: generic, name: spare, url: "https://hooks.example.com/spare"}
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-lint-'));
  mkdirSync(join(dir, 'manifests'));
  mkdirSync(join(dir, 'policies'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\npolicy:\n  ' +
      'requiredTags: [owner]\n  namePatterns: {Dashboard: "^[A-Z]"}\n',
  );
  writeFileSync(join(dir, 'manifests', 'all.yaml'), dashboards('checkout'));
  writeFileSync(
    join(dir, 'policies', 'boards.yaml'),
    `apiVersion: obsync/v1
kind: Policy
metadata: {name: boards}
spec:
  rules:
    - id: short-name
      severity: warning
      kinds: [Dashboard]
      expression: size(object.spec.name) <= 20
      message: keep dashboard names short
`,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('obsync lint', () => {
  it('reports each finding at file:line with its rule, a waived one with its reason, and exits 1 on an error', async () => {
    const r = await runCli(['lint'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("manifests/all.yaml:1:1: error: Dashboard/checkout: the name 'checkout' does not match ^[A-Z]");
    expect(r.stdout).toContain('[name-pattern]');
    expect(r.stdout).toContain('waived warning: Webhook/spare is notified by no alert');
    expect(r.stdout).toContain('(waived: paged by hand during incidents)');
    expect(r.stdout).toContain('Policy: failed — 1 error(s), 0 warning(s), 1 waived');
    expect(r.stdout).not.toContain('hooks.example.com/spare');
  });

  it('passes (exit 0) once fixed; the custom rule reports a warning in JSON', async () => {
    writeFileSync(join(dir, 'manifests', 'all.yaml'), dashboards('Checkout service of the payments team'));
    const r = await runCli(['lint', '--output', 'json'], { cwd: dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { passed: boolean; findings: { rule: string; file: string; waived?: string }[] };
    expect(report.passed).toBe(true);
    expect(report.findings.map((f) => [f.rule, f.file, f.waived ?? null])).toEqual([
      ['short-name', 'manifests/all.yaml', null],
      ['unused-webhook', 'manifests/all.yaml', 'paged by hand during incidents'],
    ]);
  });
});
