/**
 * Commands a new user reaches for in the first hour, through the CLI on the embedded sandbox:
 * deleting the last object of a kind on purpose (`--allow-empty-kind`, also through a saved plan),
 * an apply that only takes ownership ending with its counts, and `query` as a table or JSON lines.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../support/cli.js';

let dir: string;
beforeAll(() => assertBuilt());
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `obsync init` and a first apply: Dashboard/example-service and Alert/example-p95-high owned. */
async function applied(): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'obsync-commands-'));
  expect((await runCli(['init'], { cwd: dir })).code).toBe(0);
  const first = await runCli(['apply', '--auto-approve'], { cwd: dir });
  expect(first.code, first.stderr).toBe(0);
  return dir;
}

/** The example manifest without its alert: no Alert is declared any more. */
function dropAlert(cwd: string): void {
  const file = join(cwd, 'manifests', 'example.yaml');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.slice(0, text.indexOf('---')));
}

describe('--allow-empty-kind', () => {
  it('plan and apply refuse to delete the last Alert until it is confirmed, and a saved plan keeps the confirmation', async () => {
    const cwd = await applied();
    dropAlert(cwd);
    const refused = await runCli(['apply', '--auto-approve', '--prune'], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'no Alert is declared but obsync owns 1: refusing to delete them all (is the manifest path right?); declare at least one Alert, or ' +
        'confirm deleting the last ones with --allow-empty-kind Alert',
    );
    expect(refused.stderr).toContain('(--allow-empty-kind KIND for the last objects of a kind)');

    const planned = await runCli(['plan', '--prune', '--allow-empty-kind', 'Alert', '--out', 'prune.json', '--detailed-exitcode'], { cwd });
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).toContain('- Alert/example-p95-high  (delete, not-declared');
    const saved = JSON.parse(readFileSync(join(cwd, 'prune.json'), 'utf8')) as { targets: { prune: Record<string, unknown> }[] };
    expect(saved.targets[0]?.prune).toMatchObject({ requested: true, allowEmptyKinds: ['Alert'], refused: [] });

    // The saved plan applies as reviewed, without the flag on the command line.
    const apply = await runCli(['apply', 'prune.json'], { cwd });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toMatch(/Alert\/example-p95-high: deleted/);
    expect(apply.stdout).toContain('Apply complete: 0 created, 0 updated, 1 deleted, 0 failed, 0 refused, 0 skipped.');
    const after = await runCli(['plan', '--prune', '--detailed-exitcode'], { cwd });
    expect(after.code).toBe(0);
  });

  it('is refused for a word that is not a kind', async () => {
    dir = mkdtempSync(join(tmpdir(), 'obsync-commands-'));
    const res = await runCli(['plan', '--prune', '--allow-empty-kind', 'Alerts'], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      "error: option '--allow-empty-kind <kind>' argument 'Alerts' is invalid. expected one of Dashboard, Alert, Pipe, Source, Webhook, " +
        'SavedSearch, Connection',
    );
  });
});

describe('an apply that only adopts', () => {
  it('ends with a closing line that counts the adoptions', async () => {
    const cwd = await applied();
    // The inventory is lost (the embedded sandbox's data, also under the state directory, is kept): both objects exist, unowned.
    for (const file of ['sandbox.json', 'sandbox.journal']) rmSync(join(cwd, '.obsync', 'state', file), { force: true });
    const res = await runCli(['apply', '--auto-approve'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(
      "No changes. Target 'sandbox' (hosted) matches the manifests; apply takes ownership of the 2 existing object(s) above.",
    );
    expect(res.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Apply complete: 0 created, 0 updated, 0 deleted, 2 adopted, 0 failed, 0 refused, 0 skipped.',
    );
    const owned = await runCli(['state', 'list', '--output', 'json'], { cwd });
    expect((JSON.parse(owned.stdout) as unknown[]).length).toBe(2);
    // Nothing left to adopt: the next apply stays quiet after "No changes."
    const again = await runCli(['apply', '--auto-approve'], { cwd });
    expect(again.stdout).not.toContain('Apply complete');
  });
});

describe('obsync query', () => {
  /** A project whose only target is the embedded sandbox of the self-hosted API (it serves chart series). */
  function selfHosted(): string {
    dir = mkdtempSync(join(tmpdir(), 'obsync-commands-'));
    writeFileSync(
      join(dir, 'obsync.yaml'),
      'apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: sh, variant: sandbox, api: self-hosted}\n',
    );
    return dir;
  }

  it('prints a table: ISO times, a column per --group-by, the values as numbers', async () => {
    const cwd = selfHosted();
    const res = await runCli(['query', '--source', 'Logs', '--since', '5m', '--granularity', '1m', '--group-by', 'ServiceName'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    const [header, ...rows] = res.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^TIME \(UTC\) +ServiceName +count$/);
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) expect(row).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z {2}ServiceName-\d+ +\d+$/);
    const quantile = await runCli(
      [
        'query',
        '--source',
        'Traces',
        '--agg',
        'quantile',
        '--level',
        '0.99',
        '--field',
        'Duration',
        '--since',
        '3m',
        '--granularity',
        '1m',
      ],
      { cwd },
    );
    expect(quantile.stdout.split('\n')[0]).toMatch(/^TIME \(UTC\) +quantile\(0\.99, Duration\)$/);
  });

  it('prints one JSON object per line with --output json, counts as numbers', async () => {
    const cwd = selfHosted();
    const res = await runCli(['query', '--source', 'Logs', '--since', '3m', '--granularity', '1m', '--output', 'json'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const point = JSON.parse(line) as { time: string; group: Record<string, string>; value: unknown };
      expect(Object.keys(point)).toEqual(['time', 'group', 'value']);
      expect(new Date(point.time).toISOString().replace('.000Z', 'Z')).toBe(point.time);
      expect(point.group).toEqual({});
      expect(typeof point.value).toBe('number');
    }
  });
});
