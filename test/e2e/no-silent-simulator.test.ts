/**
 * Never a silent simulator (issue 25): no command falls back to the embedded sandbox while a
 * credential variable is set, `obsync run` never does unless obsync.yaml names `variant: sandbox`,
 * and the embedded sandbox keeps its data under the state directory, not the working directory.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runFailure } from '../support/cli.js';
import { startDaemon, type RunningDaemon } from '../support/daemon.js';
import { until } from '../support/wait.js';

let dir: string;
let daemon: RunningDaemon | undefined;

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-no-silent-'));
  cpSync('config-examples/team/dashboards', join(dir, 'manifests'), { recursive: true });
});
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('never a silent simulator', () => {
  it.each([
    ['OBSYNC_API_KEY', 'k-real-key-1234'],
    ['OBSYNC_KEY_ID', 'kid-1234'],
    ['OBSYNC_KEY_SECRET_FILE', '/nonexistent/secret'],
    ['OBSYNC_STATE_URL', 'postgres://u:pw-1234@127.0.0.1:1/db'],
  ])('with %s set and no target, plan refuses instead of planning against the sandbox', async (name, value) => {
    const res = await runCli(['plan', 'manifests'], { cwd: dir, env: { [name]: value } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`error: ${name} is set, but no target is configured: obsync does not fall back to the embedded sandbox`);
    expect(res.stderr).toMatch(
      /hint: set OBSYNC_BASE_URL .*or declare the target in obsync\.yaml \(none found in .*\); to try the embedded sandbox, unset /,
    );
    expect(res.stderr).not.toContain('pw-1234');
    expect(res.stdout).toBe('');
    expect(existsSync(join(dir, '.obsync'))).toBe(false);
  });

  it('obsync run refuses without a configured target, naming OBSYNC_BASE_URL and obsync.yaml, even with --target sandbox', async () => {
    for (const args of [
      ['run', 'manifests'],
      ['run', 'manifests', '--target', 'sandbox'],
    ]) {
      const res = await runCli([...args, '--listen', '127.0.0.1:0'], { cwd: dir });
      expect(res.code, args.join(' ')).toBe(1);
      const failure = runFailure(res.stderr);
      expect(failure.error).toContain('obsync run has no target: it reconciles only a service that is configured');
      expect(failure.hint).toMatch(/^set OBSYNC_BASE_URL .*declare targets in obsync\.yaml .*variant: sandbox/);
    }
    writeFileSync(join(dir, 'obsync.yaml'), 'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\n');
    const withConfig = await runCli(['run', '--listen', '127.0.0.1:0'], { cwd: dir });
    expect(withConfig.code).toBe(1);
    expect(runFailure(withConfig.stderr).hint).toContain(`declare targets in ${join(dir, 'obsync.yaml')}`);
    expect(existsSync(join(dir, '.obsync'))).toBe(false);
  });

  it('obsync run reconciles a declared variant: sandbox target, its data under the state directory', async () => {
    writeFileSync(
      join(dir, 'obsync.yaml'),
      'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: play, variant: sandbox}\n',
    );
    daemon = await startDaemon(dir, ['--no-watch', '--schedule', '0 0 1 1 *']);
    await until('a successful run', () => (daemon?.events('run-finished').some((l) => l.result === 'success') ? true : undefined));
    expect(daemon.output()).toContain(
      `target 'play' is the embedded sandbox (hosted API, data in ${join(dir, '.obsync/state/embedded/play')})`,
    );
    const status = (await (await fetch(`${daemon.url}/api/status`)).json()) as { targets: { embedded: boolean }[] };
    expect(status.targets[0]?.embedded).toBe(true);
  });

  it('plan without any credential uses the embedded sandbox, and says so; its data goes under the state directory', async () => {
    const res = await runCli(['plan', 'manifests'], { cwd: dir });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      `obsync: no target configured — using the embedded sandbox (hosted API, data in ${join(dir, '.obsync/state/embedded/sandbox')})`,
    );
    const moved = await runCli(['plan', 'manifests'], { cwd: dir, env: { OBSYNC_STATE_DIR: join(dir, 'elsewhere') } });
    expect(moved.stderr).toContain(`data in ${join(dir, 'elsewhere/embedded/sandbox')}`);
    expect(existsSync(join(dir, '.obsync/sandbox'))).toBe(false);
  });
});
