import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { safeOutput } from '../../core/printable.js';
import { ExitRequest, outputWriter, type CliIO } from '../io.js';
import { KINDS, MANAGED } from '../../kinds/registry.js';
import { buildProgram } from '../program.js';
import { githubAnnotation } from './validate.js';

function fakeIO(cwd: string, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  stderr.on('data', (c: Buffer) => err.push(c.toString()));
  const writer = (stream: PassThrough) => outputWriter(stream as unknown as NodeJS.WriteStream);
  const io: CliIO = { stdout: writer(stdout), stderr: writer(stderr), stdin: new PassThrough(), terminal: stderr, env, cwd };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

async function run(io: CliIO, args: string[]): Promise<number> {
  try {
    await (await buildProgram(io, args)).parseAsync(args, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof ExitRequest) return e.exitCode;
    throw e;
  }
}

const alert = (threshold: string) =>
  `apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: errors}\nspec:\n  savedSearch: Errors\n  ` +
  `interval: 5m\n  threshold: ${threshold}\n  thresholdType: above\n  channel: {type: webhook, webhook: ` +
  `ops-slack}\n`;

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-validate-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe('obsync validate', () => {
  it('exits 0 on valid manifests and 1 with located errors', async () => {
    const dir = project({ 'ok/a.yaml': alert('5'), 'bad/a.yaml': alert('high') });
    const ok = fakeIO(dir);
    expect(await run(ok.io, ['validate', 'ok'])).toBe(0);
    expect(ok.out()).toBe('valid: 1 resource(s)\n');
    const bad = fakeIO(dir);
    expect(await run(bad.io, ['validate', 'bad'])).toBe(1);
    expect(bad.out()).toBe("bad/a.yaml:7:3: error: expected number, got 'high' (at spec.threshold)\ninvalid: 1 error(s)\n");
  });

  it('prints GitHub annotations and JSON', async () => {
    const dir = project({ 'a.yaml': alert('high') });
    const gh = fakeIO(dir);
    expect(await run(gh.io, ['validate', '.', '--output', 'github'])).toBe(1);
    expect(gh.out()).toBe("::error file=a.yaml,line=7,col=3::expected number, got 'high' (at spec.threshold)\n");
    const json = fakeIO(dir);
    await run(json.io, ['validate', '--output', 'json']);
    expect(JSON.parse(json.out())).toMatchObject({
      valid: false,
      resources: [],
      diagnostics: [{ code: 'invalid-type', file: 'a.yaml', line: 7, col: 3, path: 'spec.threshold' }],
    });
  });

  it("reads default paths from obsync.yaml's manifests, with --allow-missing-env", async () => {
    const dir = project({
      'obsync.yaml': 'apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\n',
      'm/a.yaml': alert('${env:LIMIT}'),
      'ignored/a.yaml': alert('high'),
    });
    const strict = fakeIO(dir);
    expect(await run(strict.io, ['validate'])).toBe(1);
    expect(strict.out()).toContain('m/a.yaml:7:14: error: environment variable LIMIT is not set');
    expect(await run(fakeIO(dir, { LIMIT: '5' }).io, ['validate'])).toBe(0);
    const lenient = fakeIO(dir);
    expect(await run(lenient.io, ['validate', '--allow-missing-env'])).toBe(0);
    expect(lenient.out()).toContain('warning: environment variable LIMIT is not set');
  });

  it(
    'opens no state: unset variables there are no error, a literal mistake is; obsync.yaml its unset ' +
      'variables are warnings with --allow-missing-env',
    async () => {
      const dir = project({
        'obsync.yaml':
          'apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\nstate: {backend: postgres, url: ' +
          '"${env:PG_URL}", leaseSeconds: "${env:LEASE}"}\ndefaults: {maxDeletes: "${env:MAX}"}\n',
        'm/a.yaml': alert('5'),
      });
      const strict = fakeIO(dir);
      expect(await run(strict.io, ['validate'])).toBe(1);
      expect(strict.out()).not.toContain('PG_URL');
      expect(strict.out()).not.toContain('LEASE');
      expect(strict.out()).toMatch(/obsync.yaml:5:\d+: error: environment variable MAX is not set/);
      const lenient = fakeIO(dir);
      expect(await run(lenient.io, ['validate', '--allow-missing-env'])).toBe(0);
      expect(lenient.out()).toContain('warning: environment variable MAX is not set');
      expect(lenient.out()).toContain('valid: 1 resource(s)');
      writeFileSync(
        join(dir, 'obsync.yaml'),
        'apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\nstate: {backend: mysql, url: "${env:PG_URL}"}\n',
      );
      const wrong = fakeIO(dir);
      expect(await run(wrong.io, ['validate'])).toBe(1);
      expect(wrong.out()).toContain("unknown backend 'mysql'");
      // Where the manifests are is unknown while obsync.yaml is invalid: no misleading "no manifests found".
      expect(wrong.out()).not.toContain('no manifests found');
    },
  );

  describe('with several targets', () => {
    const config = `apiVersion: obsync/v1
kind: Config
manifests: [base]
targets:
  - name: staging
    variant: self-hosted
    baseUrl: \${env:STAGING_URL}
    credentials: {apiKey: "\${env:STAGING_KEY}"}
    vars: {limit: 900}
  - name: production
    variant: hosted
    baseUrl: https://api.example.com
    organizationId: \${env:PROD_ORG}
    serviceId: \${env:PROD_SERVICE}
    manifests: [production]
    vars: {limit: 500}
`;
    const pipe = 'apiVersion: obsync/v1\nkind: Pipe\nmetadata: {name: orders}\nspec: {name: orders-postgres, state: running}\n';

    it("checks every target's tree without its settings or credentials: base plus overlay, each with its vars", async () => {
      const dir = project({ 'obsync.yaml': config, 'base/a.yaml': alert('${var:limit}'), 'production/pipe.yaml': pipe });
      const io = fakeIO(dir);
      expect(await run(io.io, ['validate'])).toBe(0);
      expect(io.out()).toBe('valid: resources per target: staging 1, production 2\n');
      const json = fakeIO(dir);
      await run(json.io, ['validate', '--output', 'json']);
      expect(JSON.parse(json.out())).toMatchObject({
        valid: true,
        targets: [
          { name: 'staging', resources: [{ address: 'Alert/errors', file: 'base/a.yaml' }] },
          { name: 'production', resources: [{ address: 'Alert/errors' }, { address: 'Pipe/orders', file: 'production/pipe.yaml' }] },
        ],
      });
    });

    it('names the target and the file of a kind its variant cannot manage, and of a var it lacks', async () => {
      const dir = project({
        'obsync.yaml': config.replace('vars: {limit: 900}', 'vars: {limits: 900}'),
        'base/a.yaml': alert('${var:limit}'),
        'base/pipe.yaml': pipe,
        'production/README.md': '',
      });
      const io = fakeIO(dir);
      expect(await run(io.io, ['validate'])).toBe(1);
      expect(io.out()).toBe(
        [
          "base/a.yaml:7:14: error: ${var:limit}: target 'staging' has no var 'limit' — did you mean 'limits'?; " +
            "declare it under that target's vars in obsync.yaml (at spec.threshold)",
          "base/pipe.yaml:1:1: error: target 'staging' (self-hosted) cannot manage Pipe objects: Pipe/orders is " +
            'served by hosted targets only — move its file to the manifests of hosted targets ' +
            '(targets[].manifests in obsync.yaml)',
          'invalid: 2 error(s)',
          '',
        ].join('\n'),
      );
    });
  });

  it('escapes annotation data', () => {
    expect(safeOutput(githubAnnotation({ severity: 'warning', code: 'x', message: '50% done\nnext', file: 'a,b:c.yaml', line: 1 }))).toBe(
      '::warning file=a%2Cb%3Ac.yaml,line=1::50%25 done%0Anext',
    );
  });
});

describe('obsync schema', () => {
  it('prints a draft-07 schema of every kind and writes it with --out', async () => {
    const dir = project({});
    const io = fakeIO(dir);
    expect(await run(io.io, ['schema'])).toBe(0);
    const schema = JSON.parse(io.out()) as {
      $schema: string;
      properties: { kind: { enum: string[] } };
      definitions: Record<string, unknown>;
    };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.kind.enum).toEqual([...MANAGED.map((d) => d.kind), 'Policy', 'AlertTest', 'Config']);
    expect(Object.keys(schema.definitions)).toEqual(expect.arrayContaining([...KINDS, 'PolicyManifest', 'AlertTestManifest', 'Config']));
    expect(await run(fakeIO(dir).io, ['schema', '--out', 'schema.json'])).toBe(0);
    expect(readFileSync(join(dir, 'schema.json'), 'utf8')).toBe(io.out());
  });
});
