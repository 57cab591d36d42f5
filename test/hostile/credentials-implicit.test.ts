/**
 * Issue 53 item 1: every credential the process authenticates with is a credential. node-postgres
 * logs in with PGPASSWORD and the password file (PGPASSFILE, ~/.pgpass); undici sends the user and
 * password of HTTP(S)_PROXY. A dashboard named "x ${env:PGPASSWORD} y" passed validate, was
 * printed by plan and written by apply. Now every source is fed to the one guard and the one
 * scrubber: with all of them set at once, each carrying its own canary, validate, plan and apply
 * refuse every field that carries one and print none, and the scrubber masks each in its forms.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerImplicitCredentials } from '../../src/cli/implicit-credentials.js';
import { scrub } from '../../src/core/scrub.js';
import { loadConfig } from '../../src/config/load.js';
import { credentialValues, implicitCredentials, pgpassPasswords } from '../../src/manifests/credentials.js';
import { loadManifests } from '../../src/manifests/load.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';

let dir: string;

/** A canary per source; each is what the driver or library would send. */
const CANARY = {
  OBSYNC_API_KEY: 'canary-api-key-5b71c2',
  OBSYNC_STATUS_TOKEN: 'canary-status-token-93ad0e17',
  OBSYNC_STATE_URL: 'postgres://obsync:canary-state-pw-4410@127.0.0.1:9/obsync',
  PGPASSWORD: 'canary-pgpassword-7f3e',
  PGPASSFILE: 'canary-passfile-pw-c94d',
  HOME_PGPASS: 'canary-home-pgpass-08aa',
  HTTP_PROXY: 'canary-http-proxy-pw-2e61',
  https_proxy: 'canary-https-proxy-pw-d5c3',
} as const;

function environment(home: string): Record<string, string> {
  writeFileSync(join(dir, 'passfile'), `# a comment\n127.0.0.1:5432:obsync:obsync:${CANARY.PGPASSFILE}\n*:*:*:other:with\\:colon-pw\n`);
  writeFileSync(join(home, '.pgpass'), `*:*:*:*:${CANARY.HOME_PGPASS}\n`);
  return {
    OBSYNC_API_KEY: CANARY.OBSYNC_API_KEY,
    OBSYNC_STATUS_TOKEN: CANARY.OBSYNC_STATUS_TOKEN,
    PGPASSWORD: CANARY.PGPASSWORD,
    PGPASSFILE: join(dir, 'passfile'),
    HOME: home,
    HTTP_PROXY: `http://proxy-user:${CANARY.HTTP_PROXY}@127.0.0.1:9`,
    https_proxy: `http://other-user:${encodeURIComponent(CANARY.https_proxy)}@127.0.0.1:9`,
    NO_PROXY: '127.0.0.1',
  };
}

const dashboard = (name: string, text: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: ${name}}
spec:
  name: ${JSON.stringify(text)}
  tiles: []
---
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-implicit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('credentials the drivers read for themselves', () => {
  it('are all known to the guard, each by where it comes from, and nothing else is', () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const env = environment(home);
    const found = implicitCredentials(env);
    const values = found.map((v) => v.value);
    for (const canary of [CANARY.PGPASSWORD, CANARY.PGPASSFILE, CANARY.HTTP_PROXY, CANARY.https_proxy]) expect(values).toContain(canary);
    expect(values).toContain('with:colon-pw');
    expect(values).toContain(`proxy-user:${CANARY.HTTP_PROXY}`);
    expect(values).toContain(Buffer.from(`other-user:${CANARY.https_proxy}`).toString('base64'));
    // PGPASSFILE set: node-postgres reads that file, not ~/.pgpass.
    expect(values).not.toContain(CANARY.HOME_PGPASS);
    const { PGPASSFILE: _, ...withoutFile } = env;
    expect(implicitCredentials(withoutFile).map((v) => v.value)).toContain(CANARY.HOME_PGPASS);
    // A proxy without a user and password carries no credential.
    expect(implicitCredentials({ HTTPS_PROXY: 'http://proxy.internal:3128' })).toEqual([]);
    expect(credentialValues(env).map((v) => v.origin)).toContain('the value of PGPASSWORD');
  });

  it('validate, plan and apply refuse every field that carries one, and print none (every source set at once)', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const env = environment(home);
    const project = mkdtempSync(join(dir, 'project-'));
    writeFileSync(
      join(project, 'obsync.yaml'),
      'apiVersion: obsync/v1\nkind: Config\nmanifests: [m.yaml]\ntargets:\n  - {name: s, variant: sandbox}\n',
    );
    const manifests = [
      dashboard('pg-env', 'x ${env:PGPASSWORD} y'),
      dashboard('proxy-env', 'x ${env:HTTP_PROXY} y'),
      dashboard('proxy-lower', 'x ${env:https_proxy} y'),
      dashboard('passfile', `x ${CANARY.PGPASSFILE} y`),
      dashboard('api-key', 'x ${env:OBSYNC_API_KEY} y'),
      dashboard('token', 'x ${env:OBSYNC_STATUS_TOKEN} y'),
      dashboard('fine', 'Checkout latency'),
    ];
    writeFileSync(join(project, 'm.yaml'), manifests.join(''));
    for (const args of [['validate'], ['plan'], ['apply', '--auto-approve']]) {
      // In process (the CLI's own writers, scrubber and output pass included): three child processes would cost seconds.
      const run = fakeIO(project, { env });
      const code = await runInProcess(run.io, args);
      const all = run.out() + run.err();
      expect(code, args[0]).toBe(1);
      for (const name of ['pg-env', 'proxy-env', 'proxy-lower', 'passfile', 'api-key', 'token'])
        expect(all, `${args[0]} ${name}`).toMatch(
          new RegExp(`Dashboard/${name}|metadata: \\{name: ${name}\\}|m\\.yaml:\\d+:3: error: spec\\.name contains`),
        );
      expect(all.match(/spec\.name contains/g)?.length, args[0]).toBe(6);
      expect(all).toMatch(/spec\.name contains the value of PGPASSWORD \(value not shown\)/);
      expect(all).toMatch(/spec\.name contains the user and password of HTTP_PROXY|spec\.name contains the value of HTTP_PROXY/);
      for (const canary of Object.values(CANARY)) expect(all, `${args[0]} shows ${canary}`).not.toContain(canary);
    }
  });

  it('are masked by the scrubber in the forms a server echoes', () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const env = environment(home);
    registerImplicitCredentials(env);
    const basicOf = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');
    for (const canary of [CANARY.PGPASSWORD, CANARY.PGPASSFILE, CANARY.HTTP_PROXY, CANARY.https_proxy]) {
      for (const echo of [canary, canary.toUpperCase(), encodeURIComponent(canary), JSON.stringify({ p: canary }), canary.slice(0, 14)])
        expect(scrub(`echo ${echo} end`)).not.toContain(echo);
    }
    expect(scrub(`Proxy-Authorization: Basic ${basicOf('proxy-user', CANARY.HTTP_PROXY)}`)).toBe('Proxy-Authorization: Basic (sensitive)');
  });

  it('holds for any credential in any of these sources (property)', () => {
    const credential = fc.stringMatching(/^[A-Za-z0-9_-]{16,32}$/);
    const source = fc.constantFrom('PGPASSWORD', 'PGPASSFILE', 'HOME', 'HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy');
    fc.assert(
      fc.property(credential, source, (value, from) => {
        const home = mkdtempSync(join(dir, 'p-'));
        const env: Record<string, string> = { HOME: home };
        if (from === 'PGPASSWORD') env.PGPASSWORD = value;
        else if (from === 'PGPASSFILE') {
          writeFileSync(join(home, 'pf'), `h:1:d:u:${value}\n`);
          env.PGPASSFILE = join(home, 'pf');
        } else if (from === 'HOME') writeFileSync(join(home, '.pgpass'), `*:*:*:*:${value}\n`);
        else env[from] = `http://u:${value}@127.0.0.1:9`;
        writeFileSync(join(home, 'd.yaml'), dashboard('leaky', `see ${value}`));
        const result = loadManifests([join(home, 'd.yaml')], { env, files: { roots: [home] } });
        expect(result.diagnostics.map((d) => d.code)).toEqual(['credential-in-field']);
        expect(JSON.stringify(result.diagnostics)).not.toContain(value);
        // obsync.yaml is held to the same rule.
        writeFileSync(
          join(home, 'obsync.yaml'),
          `apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: s, variant: sandbox, vars: {x: "${value}"}}\n`,
        );
        expect(loadConfig(join(home, 'obsync.yaml'), env).diagnostics.map((d) => d.code)).toContain('credential-in-field');
      }),
      { numRuns: 40 },
    );
  });

  it('reads the password file as node-postgres does: escaped colons and backslashes, comments skipped', () => {
    expect(pgpassPasswords('# h:p:d:u:not\nh:5432:db:user:pa\\:ss\\\\w0rd\n*:*:*:*:\nshort:line\n')).toEqual([
      'pa\\:ss\\\\w0rd',
      'pa:ss\\w0rd',
    ]);
  });
});
