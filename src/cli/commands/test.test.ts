import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import dns from 'node:dns';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExitRequest, outputWriter, type CliIO } from '../io.js';
import { buildProgram } from '../program.js';

function fakeIO(cwd: string) {
  const out: string[] = [];
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  const writer = (stream: PassThrough) => outputWriter(stream as unknown as NodeJS.WriteStream);
  const io: CliIO = { stdout: writer(stdout), stderr: writer(new PassThrough()), stdin: new PassThrough(), terminal: stdout, env: {}, cwd };
  return { io, out: () => out.join('') };
}

async function run(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  const { io, out } = fakeIO(cwd);
  try {
    await (await buildProgram(io, args)).parseAsync(args, { from: 'user' });
    return { code: 0, out: out() };
  } catch (e) {
    if (e instanceof ExitRequest) return { code: e.exitCode, out: out() };
    throw e;
  }
}

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-test-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

// A target whose credentials come from the environment: obsync test must neither need nor read them.
const CONFIG = `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - name: prod
    variant: self-hosted
    baseUrl: https://hyperdx.example.com
    credentials: {apiKey: "\${env:OBSYNC_API_KEY}"}
`;
const ALERT = `apiVersion: obsync/v1
kind: Alert
metadata: {name: errors-high}
spec:
  savedSearch: Errors
  interval: 5m
  threshold: 10
  thresholdType: above
  channel: {type: webhook, webhook: ops-slack}
`;
const test = (name: string, series: string, expect: string) =>
  `apiVersion: obsync/v1\nkind: AlertTest\nmetadata: {name: ${name}}\nspec:\n  alert: errors-high\n  ` +
  `interval: 5m\n  series: ${series}\n  expect: ${expect}\n---\n`;

afterEach(() => vi.restoreAllMocks());

describe('obsync test', () => {
  it('passes offline with a target and no credential, opening no socket and resolving no name', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const lookup = vi.spyOn(dns, 'lookup');
    const dir = project({
      'obsync.yaml': CONFIG,
      'manifests/alert.yaml': ALERT,
      // A burst of 3 windows re-notifies in each (hyperdx b52a6fa), then resolves once.
      'manifests/tests.yaml':
        test('burst', '"0 0 12 15 11 0 0"', '{notifications: 3, resolutions: 1, episodes: 1, firing: 3}') +
        test('per-group', '{checkout: "12 12 0", api: "0 12 _"}', '{notifications: 3, resolutions: 2, episodes: 1}'),
    });
    const got = await run(dir, ['test']);
    expect(got.out).toContain('PASS AlertTest/burst (Alert/errors-high)  manifests/tests.yaml:1');
    expect(got.out).toContain('2 test(s): 2 passed, 0 failed');
    expect(got.code).toBe(0);
    expect(connect).not.toHaveBeenCalled();
    expect(lookup).not.toHaveBeenCalled();
  });

  it('fails with exit 1 and a diff of expected and actual; json and github outputs carry the same', async () => {
    const dir = project({
      'obsync.yaml': CONFIG,
      'manifests/alert.yaml': ALERT,
      'manifests/tests.yaml': test('wrong', '"0 12 15 0"', '{notifications: 1, episodes: 1}'),
    });
    const text = await run(dir, ['test']);
    expect(text.code).toBe(1);
    expect(text.out).toContain('FAIL AlertTest/wrong (Alert/errors-high)  manifests/tests.yaml:1');
    expect(text.out).toContain(
      '--- expected\n    +++ actual (obsync checker)\n    - notifications: 1\n    + notifications: 2\n      episodes: 1\n',
    );
    const json = await run(dir, ['test', '--output', 'json']);
    expect(JSON.parse(json.out)).toMatchObject({
      passed: false,
      tests: [{ name: 'wrong', passed: false, expected: { notifications: 1 }, actual: { notifications: 2, episodes: 1 } }],
    });
    const github = await run(dir, ['test', '--output', 'github']);
    expect(github.out).toContain(
      '::error file=manifests/tests.yaml,line=1::AlertTest/wrong (Alert/errors-high): notifications expected 1, actual 2',
    );
  });

  it('fails a test naming no alert, a bad series, an interval not the alert’s, and an invalid test document at its line', async () => {
    const dir = project({
      'obsync.yaml': CONFIG,
      'manifests/alert.yaml': ALERT,
      'manifests/tests.yaml':
        test('bad-series', '"1 two 3"', '{firing: 0}') +
        test('bad-interval', '"1"', '{firing: 0}').replace('interval: 5m', 'interval: 1m') +
        test('missing', '"1"', '{firing: 0}').replace('alert: errors-high', 'alert: nope') +
        test('no-expect', '"1"', '{}'),
    });
    const got = await run(dir, ['test']);
    expect(got.code).toBe(1);
    expect(got.out).toContain('"two" is not a value');
    expect(got.out).toContain("the test's interval is 1m, the alert's 5m");
    expect(got.out).toContain("no Alert manifest named 'nope'");
    expect(got.out).toMatch(/manifests\/tests\.yaml:\d+:\d+: error: .*expect names at least one/);
  });

  it('AlertTest documents are not resources: validate accepts them beside the manifests', async () => {
    const dir = project({ 'manifests/alert.yaml': ALERT, 'manifests/tests.yaml': test('burst', '"12"', '{firing: 1}') });
    const got = await run(dir, ['validate', 'manifests']);
    expect(got.out).toContain('valid: 1 resource(s)');
    expect(got.code).toBe(0);
  });
});
