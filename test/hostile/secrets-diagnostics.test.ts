/**
 * Issue 13, item 7: a type error at a sensitive path printed the value (`expected string, got
 * number 83927461`), also into GitHub annotations. A value at a sensitive path is never printed;
 * a numeric-looking secret interpolated into a string field stays a string.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { PipeSpec } from '../../src/kinds/pipe/schema.js';
import { loadManifests } from '../../src/manifests/load.js';
import { assertBuilt, runCli } from '../support/cli.js';

const SECRET_NUMBER = '83927461';
let dir: string;

const pipe = (credentials: string, extra = '') => `apiVersion: obsync/v1
kind: Pipe
metadata: {name: orders}
spec:
  name: orders-postgres
  source:
    postgres:
      credentials: ${credentials}
${extra}`;

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-diag-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('diagnostics at sensitive paths', () => {
  it('name the problem and the place, never the value — in text and in GitHub annotations', async () => {
    writeFileSync(join(dir, 'p.yaml'), pipe(`{username: app, password: ${SECRET_NUMBER}}`));
    for (const output of ['text', 'github', 'json']) {
      const res = await runCli(['validate', '--output', output, '.'], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stdout + res.stderr).toContain('expected string, got a number (value not shown: sensitive field)');
      expect(res.stdout + res.stderr).not.toContain(SECRET_NUMBER);
    }
  });

  it('hide the value in every kind of complaint: wrong shape of a credentials union, a number out of range', () => {
    writeFileSync(join(dir, 'a.yaml'), pipe(`{username: ${SECRET_NUMBER}99, password: 1e400}`));
    writeFileSync(
      join(dir, 'b.yaml'),
      pipe(`{password: "${SECRET_NUMBER}-only"}`).replace('name: orders}', 'name: orders-b}').replace('orders-postgres', 'events-s3'),
    );
    const { diagnostics } = loadManifests([dir], { env: {} });
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(JSON.stringify(diagnostics)).not.toContain(SECRET_NUMBER);
    expect(JSON.stringify(diagnostics)).not.toContain('1e400');
  });

  it('hide credentials in obsync.yaml too', () => {
    const path = join(dir, 'obsync.yaml');
    writeFileSync(
      path,
      `apiVersion: obsync/v1\nkind: Config\ntargets:\n  - {name: t, variant: self-hosted, baseUrl: "http://127.0.0.1:1", credentials: ` +
        `{apiKey: ${SECRET_NUMBER}}}\n`,
    );
    const loaded = loadConfig(path, {});
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({
        path: 'targets[0].credentials.apiKey',
        message: 'expected string, got a number (value not shown: sensitive field)',
      }),
    ]);
  });
});

describe('a numeric-looking secret', () => {
  it('interpolated into a string field stays a string (the type comes from the template and the field)', () => {
    // Plain (unquoted) scalars: the case where YAML would otherwise read the substituted text as a number.
    writeFileSync(
      join(dir, 'p.yaml'),
      pipe('\n        username: app\n        password: ${env:PG_PASSWORD}', '      port: ${env:PG_PORT}\n'),
    );
    const { resources, diagnostics } = loadManifests([dir], { env: { PG_PASSWORD: SECRET_NUMBER, PG_PORT: '5432' } });
    expect(diagnostics).toEqual([]);
    const postgres = (resources[0]?.spec as PipeSpec).source?.postgres;
    expect(postgres?.credentials).toEqual({ username: 'app', password: SECRET_NUMBER });
    // A number field still takes a number from the environment.
    expect(postgres?.port).toBe(5432);
  });
});
