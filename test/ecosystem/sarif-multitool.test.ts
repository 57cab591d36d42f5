/**
 * obsync's SARIF read by Microsoft's own SARIF reader: `Sarif.Multitool validate` (the npm package
 * @microsoft/sarif-multitool, a self-contained .NET build) checks a log against the 2.1.0 schema
 * and its own rules (SARIF1xxx errors and warnings, SARIF2xxx guideline notes) and writes what it
 * found as SARIF. A lint with every kind of result (errors, warnings, a waived one as an in-source
 * suppression, a rule that does not compile, a manifest error) must give it nothing at error or
 * warning level; a log with a result stripped of its message must give it an error, so the reader
 * is seen to read.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sarifLog } from '../../src/render/sarif.js';
import { runCli } from '../support/cli.js';

const run = promisify(execFile);
let dir: string;
let multitool: string;

interface SarifLog {
  runs: { results?: { ruleId?: string; level?: string; message?: unknown; suppressions?: unknown[] }[] }[];
}

beforeAll(() => {
  // The package's path to its platform's binary; its postinstall only makes it executable, which
  // `npm ci --ignore-scripts` (.ci/run) skips.
  multitool = (createRequire(import.meta.url)('@microsoft/sarif-multitool') as string).trim();
  chmodSync(multitool, 0o755);
  dir = mkdtempSync(join(tmpdir(), 'obsync-sarif-'));
  mkdirSync(join(dir, 'manifests'));
  mkdirSync(join(dir, 'policies'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\npolicy:\n  ' +
      'requiredTags: [owner]\n  namePatterns: {Dashboard: "^[A-Z]"}\n',
  );
  writeFileSync(
    join(dir, 'manifests', 'all.yaml'),
    `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: checkout}
spec: {name: checkout, tags: [team], tiles: []}
---
apiVersion: obsync/v1
kind: Webhook
metadata:
  name: spare
  waivers: [{rule: unused-webhook, reason: "paged by hand during incidents"}]
spec: {service: generic, name: spare, url: "https://hooks.example.com/spare"}
---
apiVersion: obsync/v1
kind: Webhook
metadata: {name: spare}
spec: {service: generic, name: again, url: "https://hooks.example.com/again"}
`,
  );
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
      expression: size(object.spec.name) <= 3
      message: keep dashboard names short
    - id: broken
      severity: error
      kinds: [Dashboard]
      expression: object.spec.name ==
      message: never compiles
`,
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the multitool found in `log`, at every level. */
async function validate(log: unknown, name: string): Promise<{ ruleId?: string; level?: string }[]> {
  const input = join(dir, `${name}.sarif`);
  const output = join(dir, `${name}.validation.sarif`);
  writeFileSync(input, JSON.stringify(log));
  await run(multitool, ['validate', input, '--output', output, '--level', 'Error;Warning;Note', '--kind', 'Fail', '--quiet']);
  return (JSON.parse(readFileSync(output, 'utf8')) as SarifLog).runs.flatMap((r) => r.results ?? []);
}

describe('SARIF read by @microsoft/sarif-multitool', () => {
  it('finds no error or warning in a lint with every kind of result, and an error in a log whose result has no message', async () => {
    const lint = await runCli(['lint', '--output', 'sarif'], { cwd: dir });
    expect(lint.code, lint.stderr).toBe(1);
    const log = JSON.parse(lint.stdout) as SarifLog;
    const results = log.runs[0]?.results ?? [];
    expect(new Set(results.map((r) => r.ruleId))).toEqual(
      new Set(['invalid-manifest', 'name-pattern', 'required-tags', 'short-name', 'unused-webhook', 'broken']),
    );
    expect(results.filter((r) => r.suppressions)).toHaveLength(1);

    const found = await validate(log, 'lint');
    expect(found.filter((r) => r.level === 'error' || r.level === 'warning')).toEqual([]);
    // Guideline notes only (message arguments, code snippets, rule help): the reader did run its rules.
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((r) => r.ruleId?.startsWith('SARIF2'))).toBe(true);

    // A plan's finding about a change has no file: only its address, as a logical location.
    const planOnly = sarifLog(
      [{ rule: 'protected-delete', severity: 'error', message: 'Dashboard/old would be deleted in prod', address: 'Dashboard/old' }],
      [],
      '0.0.0',
    );
    expect((await validate(planOnly, 'plan')).filter((r) => r.level === 'error' || r.level === 'warning')).toEqual([]);

    const broken = structuredClone(log);
    delete broken.runs[0]?.results?.[0]?.message;
    expect((await validate(broken, 'broken')).filter((r) => r.level === 'error').map((r) => r.ruleId)).toContain('JSON1002');
  });
});
