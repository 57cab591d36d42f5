/**
 * Messages a new user meets in the first hour, through the CLI as they would meet them: a
 * reference the target cannot resolve points at its field's line; a sandbox port already taken
 * says which and how to choose another; a state held by a running daemon says so and what to do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, CLI, runCli } from '../support/cli.js';
import { until } from '../support/wait.js';

let dir: string;
let daemon: ChildProcess | undefined;

beforeAll(() => assertBuilt());
afterEach(async () => {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon?.once('exit', r));
  }
  daemon = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** `obsync init` in a fresh directory: the embedded sandbox target, a dashboard and an alert. */
async function project(): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'obsync-messages-'));
  expect((await runCli(['init'], { cwd: dir })).code).toBe(0);
  return dir;
}

/** The 1-based line of `text`'s first line containing `needle`. */
function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe('plan-time reference errors', () => {
  it("point at the field's line (the webhook of the channel, a tile's source), not at the document", async () => {
    const cwd = await project();
    const file = join(cwd, 'manifests', 'example.yaml');
    const text = readFileSync(file, 'utf8')
      .replace(
        'channel: {type: webhook, webhook: ops-slack}',
        'channels:\n    - {type: webhook, webhook: ops-slack}\n    - {type: webhook, webhook: ops-slak}',
      )
      .replace('source: Traces', 'source: Tracez');
    writeFileSync(file, text);
    expect((await runCli(['validate'], { cwd })).code).toBe(0); // names of live objects are only known to plan
    const plan = await runCli(['plan', '--output', 'github'], { cwd });
    expect(plan.code).toBe(1);
    const webhookLine = lineOf(text, 'webhook: ops-slak');
    const sourceLine = lineOf(text, 'source: Tracez');
    expect(plan.stdout).toContain(
      // Relative to the project (issue 52.4), with the closest live name (issue 40.5).
      `::error file=manifests/example.yaml,line=${sourceLine},col=9::Dashboard/example-service: source 'Tracez' does not exist on the ` +
        `target — did you mean 'Traces'? (at spec.tiles[0].config.source)`,
    );
    const text2 = readFileSync(file, 'utf8').replace('source: Tracez', 'source: Traces');
    writeFileSync(file, text2);
    const json = await runCli(['plan', '--output', 'json'], { cwd });
    const diagnostics = (JSON.parse(json.stdout) as { targets: { diagnostics: Record<string, unknown>[] }[] }).targets[0]?.diagnostics;
    expect(diagnostics).toEqual([
      expect.objectContaining({
        message: "Alert/example-p95-high: webhook 'ops-slak' does not exist on the target — did you mean 'ops-slack'?",
        path: 'spec.channels[1].webhook',
        line: webhookLine,
        col: (text2.split('\n')[webhookLine - 1]?.indexOf('webhook: ops-slak') ?? 0) + 1,
      }),
    ]);
  });
});

describe('obsync sandbox --port', () => {
  it('on a port in use says which one is taken and how to choose another, in two lines', async () => {
    dir = mkdtempSync(join(tmpdir(), 'obsync-messages-'));
    const other = await startSandbox({ host: '127.0.0.1', port: 0, rateLimit: 'off' });
    try {
      const port = new URL(other.url).port;
      const res = await runCli(['sandbox', '--port', port], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr.trimEnd().split('\n')).toEqual([
        `error: port ${port} on 127.0.0.1 is already in use (another sandbox, or another program, listens there)`,
        `  hint: choose another with --port N (e.g. --port ${Number(port) + 1}), or --port 0 for any free port (the address is printed); ` +
          `then point baseUrl at it`,
      ]);
    } finally {
      await other.close();
    }
  });
});

describe('a state held by a running daemon', () => {
  it('makes apply say a daemon holds it and what to do; once the daemon stops, apply goes ahead', async () => {
    const cwd = await project();
    let log = '';
    daemon = spawn(process.execPath, [CLI, 'run', '--listen', '127.0.0.1:0', '--no-watch'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    daemon.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    daemon.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    await until('the daemon applied at start-up', () => (/"msg":"run finished"/.test(log) ? true : undefined), {
      context: () => log.slice(-3000),
    });
    writeFileSync(
      join(cwd, 'manifests', 'example.yaml'),
      readFileSync(join(cwd, 'manifests', 'example.yaml'), 'utf8').replace('800', '700'),
    );
    const refused = await runCli(['apply', '--auto-approve'], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        String.raw`error: the state of target 'sandbox' is held by a running obsync daemon, obsync run \(run, pid \d+ on .+, ` +
          String.raw`lease until [^)]+\) \(lock file .+sandbox\.lock\)`,
      ),
    );
    expect(refused.stderr).toContain('hint: the daemon applies these manifests itself');
    expect(refused.stderr).toContain('or stop the daemon');
    expect(refused.stderr).not.toContain('wait for the other run to finish');
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon?.once('exit', r));
    const applied = await runCli(['apply', '--auto-approve'], { cwd });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('~ threshold: 800 → 700');
  });
});
