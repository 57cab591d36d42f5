/**
 * Issue 24 item 4 (and issue 13 item 8 before it): a credential never reaches a non-sensitive
 * field. With `credentials: {apiKey: "${env:SH_KEY}"}`, `name: "leak ${env:SH_KEY}"` validated and
 * the key was written to the service. The rule now works on resolved values, in one place
 * (src/manifests/carried.ts): any target credential, the state URL's password and any value of a
 * sensitive field, whatever variable, file or var carried it, is refused in every non-sensitive
 * field — in manifests and in obsync.yaml — with the field named and the value never shown.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { loadManifests } from '../../src/manifests/load.js';
import { LoadedFiles } from '../../src/manifests/loaded-files.js';
import { assertBuilt, runCli } from '../support/cli.js';

const KEY = 'obsync-key-secret-value-20931';
let dir: string;

const dashboard = (name: string, markdown = 'notes') => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: leaky}
spec:
  name: ${JSON.stringify(name)}
  tags: [team]
  tiles:
    - {key: notes, name: Notes, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: ${JSON.stringify(markdown)}}}
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

const webhook = (url: string) => `apiVersion: obsync/v1
kind: Webhook
metadata: {name: ops}
spec:
  service: generic
  name: ops
  url: ${JSON.stringify(url)}
`;

function load(text: string, env: Record<string, string>, extra: Record<string, string> = {}) {
  const file = join(dir, 'm.yaml');
  writeFileSync(file, text);
  for (const [name, content] of Object.entries(extra)) writeFileSync(join(dir, name), content);
  return loadManifests([dir], { env, files: { roots: [dir] } });
}

const errorsOf = (r: ReturnType<typeof load>) => r.diagnostics.filter((d) => d.severity === 'error');

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-interp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a credential in a non-sensitive field of a manifest', () => {
  it('never reaches the markdown plan: plan refuses the manifest, names the field and prints no value', async () => {
    writeFileSync(
      join(dir, 'obsync.yaml'),
      'apiVersion: obsync/v1\nkind: Config\nmanifests: [d.yaml]\ntargets:\n  - {name: s, variant: sandbox}\n',
    );
    writeFileSync(join(dir, 'd.yaml'), dashboard('Checkout ${env:OBSYNC_KEY_SECRET}'));
    const res = await runCli(['plan', '--output', 'markdown'], { cwd: dir, env: { OBSYNC_KEY_SECRET: KEY } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/d\.yaml:5:3: error: spec\.name contains the value of OBSYNC_KEY_SECRET \(value not shown\)/);
    expect(res.stdout + res.stderr).not.toContain(KEY);
  });

  it("the issue's case: a key obsync.yaml takes from ${env:SH_KEY} is refused in a dashboard name by validate and by plan", async () => {
    writeFileSync(
      join(dir, 'obsync.yaml'),
      `${'apiVersion: obsync/v1\nkind: Config\nmanifests: [m.yaml]\n'}targets:\n  - {name: sh, variant: self-hosted, baseUrl: ` +
        `"http://127.0.0.1:9", credentials: {apiKey: "\${env:SH_KEY}"}}\n`,
    );
    writeFileSync(join(dir, 'm.yaml'), dashboard('leak ${env:SH_KEY}'));
    for (const args of [['validate'], ['plan']]) {
      const res = await runCli(args, { cwd: dir, env: { SH_KEY: KEY } });
      expect(res.code, args[0]).toBe(1);
      expect(res.stdout + res.stderr, args[0]).toMatch(
        /m\.yaml:5:3: error: spec\.name contains the value of targets\.\*\.credentials\.apiKey in obsync\.yaml/,
      );
      expect(res.stdout + res.stderr).not.toContain(KEY);
      // Refused before any request: the target's port (9) is never tried.
      expect(res.stderr).not.toMatch(/127\.0\.0\.1:9/);
    }
  });

  it.each([
    ['another variable', dashboard('${env:MY_TOKEN}'), { MY_TOKEN: KEY, OBSYNC_API_KEY: KEY }, {}],
    [
      'the file a *_FILE twin names, read through ${file:}',
      dashboard('${file:key.txt}'),
      { OBSYNC_KEY_SECRET_FILE: 'KEYFILE' },
      { 'key.txt': `${KEY}\n` },
    ],
    [
      'a webhook URL of another manifest, in a markdown tile',
      dashboard('Ops', 'post to https://hooks.example.com/T0/B0/abcdefgh1234 now'),
      {},
      { 'w.yaml': webhook('https://hooks.example.com/T0/B0/abcdefgh1234') },
    ],
    ['the password of the state URL', dashboard('db p4ss-w0rd-9931'), { OBSYNC_STATE_URL: 'postgres://u:p4ss-w0rd-9931@db/obsync' }, {}],
  ])('is refused whatever carried it: %s', (_what, text, env, files) => {
    const fileEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'KEYFILE' ? join(dir, 'key.txt') : v]));
    const result = load(text, fileEnv, files);
    const errors = errorsOf(result);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'credential-in-field' });
    expect(errors[0]?.path).toMatch(/^spec\.(name|tiles\[0\]\.config\.markdown)$/);
    expect(result.resources.map((r) => r.address)).not.toContain('Dashboard/leaky');
    expect(JSON.stringify(result.diagnostics)).not.toContain(KEY);
    expect(JSON.stringify(result.diagnostics)).not.toContain('abcdefgh1234');
  });

  it('is allowed in sensitive fields (a pipe password), and the path of a credential file is no credential', () => {
    const result = load(pipe('${env:OBSYNC_KEY_SECRET}'), { OBSYNC_KEY_SECRET: KEY });
    expect(result.diagnostics).toEqual([]);
    expect(result.resources).toHaveLength(1);
    writeFileSync(join(dir, 'key.txt'), KEY);
    expect(errorsOf(load(dashboard('read from ${env:OBSYNC_KEY_SECRET_FILE}'), { OBSYNC_KEY_SECRET_FILE: join(dir, 'key.txt') }))).toEqual(
      [],
    );
  });

  it('short values block nothing: under 8 characters never, under 16 only as a whole word', () => {
    expect(errorsOf(load(dashboard('Errors 1 of 7'), { OBSYNC_API_KEY: '1', OBSYNC_KEY_SECRET: 'Errors7' }))).toEqual([]);
    expect(errorsOf(load(dashboard('checkouts latency'), { OBSYNC_API_KEY: 'checkout' }))).toEqual([]);
    expect(errorsOf(load(dashboard('checkout latency'), { OBSYNC_API_KEY: 'checkout' }))).toHaveLength(1);
    expect(errorsOf(load(dashboard('xxlong-credential-000yy'), { OBSYNC_API_KEY: 'long-credential-000' }))).toHaveLength(1);
  });

  it('holds for any credential in any non-sensitive field, whatever carries it (property)', () => {
    const credential = fc.stringMatching(/^[A-Za-z0-9+/=.*$(){}[\]|^\\-]{16,40}$/).filter((v) => !v.includes('${'));
    const carrier = fc.constantFrom('env', 'file', 'var', 'literal');
    const field = fc.constantFrom('name', 'markdown');
    fc.assert(
      fc.property(credential, carrier, field, fc.string({ maxLength: 10 }), (value, how, where, around) => {
        writeFileSync(join(dir, 'cred.txt'), value);
        const reference = {
          env: '${env:CARRIER}',
          file: '${file:cred.txt}',
          var: '${var:carried}',
          literal: value.replaceAll('${', '$${'),
        }[how];
        const text = `${around.replaceAll('$', '')} ${reference}`;
        const file = join(dir, 'm.yaml');
        writeFileSync(file, where === 'name' ? dashboard(text) : dashboard('ok', text));
        const result = loadManifests([file], {
          env: { CARRIER: value },
          files: { roots: [dir] },
          vars: { target: 't', values: { carried: value } },
          sensitive: [{ value, origin: 'the target credential' }],
        });
        expect(errorsOf(result).map((d) => d.code)).toEqual(['credential-in-field']);
        expect(JSON.stringify(result.diagnostics)).not.toContain(value);
      }),
      { numRuns: 120 },
    );
  });
});

describe('a credential in obsync.yaml', () => {
  const config = (credentials: string, extra = '') => `apiVersion: obsync/v1
kind: Config
targets:
  - name: prod
    variant: self-hosted
    baseUrl: http://127.0.0.1:8000/${extra}
    credentials: {apiKey: "${credentials}"}
`;

  it('is allowed in credentials (and the state URL) and refused anywhere else, whatever variable carried it', () => {
    const path = join(dir, 'obsync.yaml');
    writeFileSync(path, config('${env:SH_KEY}'));
    expect(loadConfig(path, { SH_KEY: KEY }).diagnostics).toEqual([]);
    writeFileSync(path, config('${env:SH_KEY}', '${env:OTHER}'));
    const refused = loadConfig(path, { SH_KEY: KEY, OTHER: KEY });
    expect(refused.config).toBeUndefined();
    expect(refused.diagnostics).toEqual([expect.objectContaining({ code: 'credential-in-field', path: 'targets[0].baseUrl' })]);
    expect(JSON.stringify(refused.diagnostics)).not.toContain(KEY);
    // The state URL carries a database password: a credential wherever the state schema puts it.
    writeFileSync(path, `${config('${env:SH_KEY}')}state: {backend: postgres, url: "\${env:OBSYNC_STATE_URL}"}\n`);
    const state = loadConfig(path, { SH_KEY: KEY, OBSYNC_STATE_URL: 'postgres://u:p4ssw0rd-77@db/obsync' });
    expect(state.diagnostics.map((d) => d.code)).not.toContain('credential-in-field');
    writeFileSync(path, `${config('${env:SH_KEY}', 'p4ssw0rd-77')}state: {backend: postgres, url: "\${env:OBSYNC_STATE_URL}"}\n`);
    const leaked = loadConfig(path, { SH_KEY: KEY, OBSYNC_STATE_URL: 'postgres://u:p4ssw0rd-77@db/obsync' });
    expect(leaked.diagnostics).toEqual([expect.objectContaining({ code: 'credential-in-field', path: 'targets[0].baseUrl' })]);
  });

  it('obsync.yaml among the manifests is left to the config loader, credentials and all', async () => {
    writeFileSync(join(dir, 'obsync.yaml'), `${config('${env:OBSYNC_API_KEY}')}manifests: [.]\n`);
    writeFileSync(join(dir, 'd.yaml'), dashboard('Checkout'));
    const res = await runCli(['validate'], { cwd: dir, env: { OBSYNC_API_KEY: KEY } });
    expect(res.stdout).toBe('valid: 1 resource(s)\n');
  });
});

describe('a file a daemon keeps between runs (no interpolation, text unchanged)', () => {
  it('is checked again when a sensitive value of another file or of the environment changes, and refused as a fresh load would', () => {
    const url = 'https://hooks.example.com/T0/B0/abcdefgh1234';
    writeFileSync(join(dir, 'd.yaml'), dashboard('Ops', `post to ${url} now`));
    writeFileSync(join(dir, 'w.yaml'), webhook('https://hooks.example.com/T0/B0/other-000000'));
    const kept = new LoadedFiles();
    const run = (env: Record<string, string> = {}) => {
      const result = loadManifests([dir], { env, files: { roots: [dir] }, loaded: kept });
      return { errors: errorsOf(result).map((d) => `${d.code} ${d.file} ${d.path}`), addresses: result.resources.map((r) => r.address) };
    };
    const refused = { errors: [`credential-in-field ${join(dir, 'd.yaml')} spec.tiles[0].config.markdown`], addresses: ['Webhook/ops'] };
    expect(run()).toEqual({ errors: [], addresses: ['Dashboard/leaky', 'Webhook/ops'] });
    expect(kept.size).toBe(2);
    // The webhook's URL becomes the one the kept dashboard shows.
    writeFileSync(join(dir, 'w.yaml'), webhook(url));
    expect(run()).toEqual(refused);
    expect(run()).toEqual(refused);
    writeFileSync(join(dir, 'w.yaml'), webhook('https://hooks.example.com/T0/B0/other-000000'));
    expect(run()).toEqual({ errors: [], addresses: ['Dashboard/leaky', 'Webhook/ops'] });
    // A credential of the environment (obsync.yaml's credentials reach the loader the same way).
    expect(run({ OBSYNC_API_KEY: 'abcdefgh1234' }).errors).toEqual([
      `credential-in-field ${join(dir, 'd.yaml')} spec.tiles[0].config.markdown`,
    ]);
    expect(run().errors).toEqual([]);
  });
});
