/**
 * Bad-input run: `obsync run` is fed every file of the invalid-manifest corpus in turn, each
 * saved together with an edit to a valid manifest. While the manifests are invalid the daemon
 * must write nothing (not even the valid edit, nor the valid documents inside the bad file),
 * report the corpus file's own error, stay live and unready; once the bad file goes it applies.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { assertBuilt, spawnCli } from '../support/cli.js';
import { httpStatus, sandboxDashboards, until as waitUntil, untilListening } from '../support/wait.js';

const corpus = join(import.meta.dirname, '../manifests/invalid');
const files = readdirSync(corpus)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

let sandbox: SandboxHandle;
let dir: string;
let daemon: ChildProcess;
let url: string;
let output = '';

interface LogLine {
  msg?: string;
  event?: string;
  diagnostics?: { file?: string; message: string }[];
  result?: string;
}

function logLines(from: number): LogLine[] {
  return output
    .slice(from)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
  waitUntil(what, probe, { context: () => output.slice(-4000) });
const status = (path: string) => httpStatus(`${url}${path}`);
const dashboards = () => sandboxDashboards(sandbox);

function canary(tag: string): string {
  return `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: canary}
spec:
  name: Bad-input canary
  tags: [${tag}]
  tiles: [{key: n, name: Count, x: 0, y: 0, w: 6, h: 3, config: {displayType: number, source: Logs, select: [{aggFn: count}]}}]
`;
}

/** The first `# expect:` message of a corpus file: the error the daemon must report for it. */
function expectedMessage(file: string): string {
  const line =
    readFileSync(join(corpus, file), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('# expect:')) ?? '';
  return line.replace(/^# expect: line \d+ col \d+ \S+: /, '');
}

/** Writes a file whole or not at all, as a watcher sees it: a sibling outside the manifests, renamed into place. */
function replace(file: string, content: string | Buffer): void {
  const staged = join(dir, `.staged-${basename(file)}`);
  writeFileSync(staged, content);
  renameSync(staged, file);
}

beforeAll(async () => {
  assertBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-bad-input-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'manifests/canary.yaml'), canary('v0'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1
kind: Config
manifests: [manifests]
targets:
  - name: sb
    variant: self-hosted
    baseUrl: ${sandbox.url}
    credentials: {apiKey: ${sandbox.credentials.apiKey}}
    rateLimit: {requests: 1000, perSeconds: 1}
`,
  );
  daemon = spawnCli(['run', '--listen', '127.0.0.1:0', '--debounce', '100', '--schedule', '0 0 1 1 *'], { cwd: dir });
  daemon.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  daemon.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  url = await untilListening(() => output);
  await until('readiness after the start-up run', async () => ((await status('/readyz')) === 200 ? true : undefined));
  expect((await dashboards()).map((d) => d.tags)).toEqual([['v0']]);
});

afterAll(async () => {
  if (daemon.exitCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon.once('exit', r));
  }
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('obsync run fed the invalid-manifest corpus', () => {
  it(`writes nothing while any of the ${files.length} invalid files is present, stays up, and recovers`, { timeout: 180_000 }, async () => {
    sandbox.clearRequests();
    const bad = join(dir, 'manifests/bad.yaml');
    for (const [i, file] of files.entries()) {
      const from = output.length;
      // The bad file first, so no debounced run can see the valid edit without it. Each file is
      // written beside the manifests and renamed into place: a run reading while writeFileSync has
      // truncated but not yet written it would see an empty (valid) file.
      replace(bad, readFileSync(join(corpus, file)));
      replace(join(dir, 'manifests/canary.yaml'), canary(`v${i + 1}`));
      const expected = expectedMessage(file);
      await until(`${file}: its error reported and the run finished`, () => {
        const lines = logLines(from);
        const reported = lines.some(
          (l) => l.event === 'manifests-invalid' && l.diagnostics?.some((d) => d.file === bad && d.message.includes(expected)),
        );
        return reported && lines.some((l) => l.event === 'run-finished' && l.result === 'invalid-manifests') ? true : undefined;
      });
      const writes = sandbox.requests().filter((r) => r.method !== 'GET');
      expect(writes, `${file}: writes while invalid`).toEqual([]);
      expect(await status('/livez'), `${file}: liveness`).toBe(200);
      expect(await status('/readyz'), `${file}: readiness`).toBe(503);
    }
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^obsync_manifest_errors\{target="sb"\} [1-9]/m);
    // A save can land as two runs (the watcher may split the two writes), never fewer than one.
    const invalidRuns = Number(/obsync_reconcile_total\{target="sb",result="invalid_manifests"\} (\d+)/.exec(metrics)?.[1]);
    expect(invalidRuns).toBeGreaterThanOrEqual(files.length);
    expect(daemon.exitCode).toBeNull();

    rmSync(bad);
    const last = `v${files.length}`;
    await until('the held-back edit applied once the bad file is gone', async () =>
      (await dashboards()).some((d) => d.tags.includes(last)) ? true : undefined,
    );
    expect((await dashboards()).map((d) => d.tags)).toEqual([[last]]);
    // Ready again once that run has finished (the update lands before the run's end is recorded).
    await until('ready again', async () => ((await status('/readyz')) === 200 ? true : undefined));
  });
});
