/** A bad status token or notifications: setting stops `obsync run` at start-up with an error naming it, and nothing runs. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { assertBuilt, runCli, runFailure } from '../support/cli.js';

let dir: string;
const config = (extra = '') =>
  writeFileSync(join(dir, 'obsync.yaml'), `apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: play, variant: sandbox}\n${extra}`);

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-run-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('refuses a status token too short, from the environment or obsync.yaml, without showing it', async () => {
  config();
  const env = await runCli(['run', '--listen', '127.0.0.1:0'], { cwd: dir, env: { OBSYNC_STATUS_TOKEN: 'short-tok' } });
  expect(env.code).toBe(1);
  expect(runFailure(env.stderr).error).toBe('OBSYNC_STATUS_TOKEN: a status token has at least 16 printable ASCII characters and no spaces');
  expect(env.stderr).not.toContain('short-tok');
  config('statusToken: short-token\n');
  const yaml = await runCli(['run', '--listen', '127.0.0.1:0'], { cwd: dir });
  expect(yaml.code).toBe(1);
  expect(runFailure(yaml.stderr).error).toMatch(
    /obsync\.yaml:5:1: error: must be at least 16 characters, \(value not shown: sensitive field\) \(at statusToken\)/,
  );
  expect(yaml.stderr).not.toContain('short-token');
});

it('refuses an invalid notifications: sink, naming the key', async () => {
  config('notifications:\n  - {type: slack, url: "not a url/secret-hook", events: [failing]}\n');
  const res = await runCli(['run', '--listen', '127.0.0.1:0'], { cwd: dir });
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(/obsync\.yaml:6:\d+: error: .*\(at notifications\[0\]\.url\)/);
  expect(res.stderr).toMatch(
    new RegExp(
      String.raw`obsync\.yaml:6:\d+: error: invalid value 'failing' — expected one of: drift, healed, failed, recovered.*\(at ` +
        String.raw`notifications\[0\]\.events\[0\]\)`,
    ),
  );
  expect(res.stderr).not.toContain('secret-hook');
});
