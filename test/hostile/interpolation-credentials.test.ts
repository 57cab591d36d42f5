/**
 * Issue 13, item 8 (credentials): `${env:OBSYNC_KEY_SECRET}` in a dashboard name would show in
 * the markdown plan the shipped workflow posts as a pull-request comment. obsync's own
 * credential variables, their `*_FILE` twins, the files those name, and any value carrying a
 * credential are refused outside sensitive fields — in manifests and in obsync.yaml.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { loadManifests } from '../../src/manifests/load.js';
import { assertBuilt, runCli } from '../support/cli.js';

const KEY = 'obsync-key-secret-value-20931';
let dir: string;

const dashboard = (name: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: leaky}
spec:
  name: "${name}"
  tiles: []
`;

const pipe = (password: string) => `apiVersion: obsync/v1
kind: Pipe
metadata: {name: orders}
spec:
  name: orders-postgres
  source:
    postgres:
      credentials: {username: app, password: "${password}"}
`;

function load(text: string, env: Record<string, string>) {
  const file = join(dir, 'm.yaml');
  writeFileSync(file, text);
  return loadManifests([file], { env, files: { roots: [dir] } });
}

const errorsOf = (r: ReturnType<typeof load>) => r.diagnostics.filter((d) => d.severity === 'error');

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-interp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('obsync credentials in manifests', () => {
  it('never reach the markdown plan: plan refuses the manifest and prints no value', async () => {
    writeFileSync(join(dir, 'd.yaml'), dashboard('Checkout ${env:OBSYNC_KEY_SECRET}'));
    const res = await runCli(['plan', '--output', 'markdown', '.'], { cwd: dir, env: { OBSYNC_KEY_SECRET: KEY } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /d\.yaml:5:\d+: error: \$\{env:OBSYNC_KEY_SECRET\} is one of obsync's own credentials: it may only be used in a sensitive field .* not in spec\.name/,
    );
    expect(res.stdout + res.stderr).not.toContain(KEY);
  });

  it.each([
    'OBSYNC_API_KEY',
    'OBSYNC_KEY_ID',
    'OBSYNC_KEY_SECRET',
    'OBSYNC_STATE_URL',
    'OBSYNC_API_KEY_FILE',
    'OBSYNC_KEY_SECRET_FILE',
    'OBSYNC_STATE_URL_FILE',
  ])('refuses ${env:%s} outside a sensitive field', (name) => {
    const result = load(dashboard(`\${env:${name}}`), { [name]: 'value-of-the-credential' });
    expect(errorsOf(result)).toEqual([expect.objectContaining({ code: 'credential-in-field', path: 'spec.name' })]);
    expect(result.resources).toEqual([]);
  });

  it('refuses a credential that arrives through another variable, or through the file a *_FILE twin names', () => {
    const aliased = load(dashboard('${env:MY_TOKEN}'), { MY_TOKEN: KEY, OBSYNC_API_KEY: KEY });
    expect(errorsOf(aliased)).toEqual([expect.objectContaining({ code: 'credential-in-field', path: 'spec.name' })]);
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, `${KEY}\n`);
    const viaFile = load(dashboard('${file:key.txt}'), { OBSYNC_KEY_SECRET_FILE: keyFile });
    expect(errorsOf(viaFile)).toEqual([expect.objectContaining({ code: 'credential-in-field', path: 'spec.name' })]);
    expect(JSON.stringify(aliased.diagnostics) + JSON.stringify(viaFile.diagnostics)).not.toContain(KEY);
  });

  it('allows them in sensitive fields (a pipe password)', () => {
    const result = load(pipe('${env:OBSYNC_KEY_SECRET}'), { OBSYNC_KEY_SECRET: KEY });
    expect(result.diagnostics).toEqual([]);
    expect(result.resources).toHaveLength(1);
  });
});

describe('obsync credentials in obsync.yaml', () => {
  const config = (credentials: string, extra = '') => `apiVersion: obsync/v1
kind: Config
targets:
  - name: prod
    variant: self-hosted
    baseUrl: http://127.0.0.1:8000/${extra}
    credentials: {apiKey: "${credentials}"}
`;

  it('are allowed in credentials (and the state URL) and refused anywhere else', () => {
    const path = join(dir, 'obsync.yaml');
    writeFileSync(path, config('${env:OBSYNC_API_KEY}'));
    expect(loadConfig(path, { OBSYNC_API_KEY: KEY }).diagnostics).toEqual([]);
    writeFileSync(path, config('${env:OBSYNC_API_KEY}', '${env:OBSYNC_API_KEY}'));
    const refused = loadConfig(path, { OBSYNC_API_KEY: KEY });
    expect(refused.config).toBeUndefined();
    expect(refused.diagnostics).toEqual([expect.objectContaining({ code: 'credential-in-field', path: 'targets[0].baseUrl' })]);
    // The state URL carries a database password: a credential wherever the state schema puts it.
    writeFileSync(path, `${config('${env:OBSYNC_API_KEY}')}state: {url: "\${env:OBSYNC_STATE_URL}"}\n`);
    const state = loadConfig(path, { OBSYNC_API_KEY: KEY, OBSYNC_STATE_URL: 'postgres://u:p4ssw0rd@db/obsync' });
    expect(state.diagnostics.map((d) => d.code)).not.toContain('credential-in-field');
  });

  it('obsync.yaml among the manifests is left to the config loader, credentials and all', async () => {
    writeFileSync(join(dir, 'obsync.yaml'), `${config('${env:OBSYNC_API_KEY}')}manifests: [.]\n`);
    writeFileSync(join(dir, 'd.yaml'), dashboard('Checkout'));
    const res = await runCli(['validate'], { cwd: dir, env: { OBSYNC_API_KEY: KEY } });
    expect(res.stdout).toBe('valid: 1 resource(s)\n');
  });
});
