import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { pipeSpecSchema, type PipeSpec } from '../kinds/pipe/schema.js';
import { maskSensitive, sensitivePaths } from '../kinds/sensitive.js';
import type { DashboardSpec } from '../kinds/dashboard/schema.js';
import { loadManifests } from './load.js';

let dir: string;
const write = (rel: string, text: string) => {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};

const dashboard = (name: string, tileName = 'p99 latency') => `apiVersion: obsync/v1
kind: Dashboard
metadata:
  name: ${name}
  labels: {team: payments}
spec:
  name: ${name}
  tiles:
    - {name: ${tileName}, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown}}
`;
const pipe = (extra: string) => `apiVersion: obsync/v1
kind: Pipe
metadata: {name: orders}
spec:
  name: orders-postgres
${extra}`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-manifests-'));
});

describe('loadManifests', () => {
  it('reads every .yaml/.yml below the paths in sorted order, many documents per file', () => {
    write('b/z.yml', `${dashboard('zeta')}---\n---\n# only a comment\n---\n${dashboard('eta')}`);
    write('a.yaml', dashboard('alpha'));
    write('.hidden/x.yaml', dashboard('hidden'));
    write('notes.txt', 'not yaml');
    write('obsync.yaml', 'apiVersion: obsync/v1\nkind: Config\nmanifests: [.]\n');
    const { resources, diagnostics } = loadManifests([dir], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => r.address)).toEqual(['Dashboard/alpha', 'Dashboard/zeta', 'Dashboard/eta']);
    const eta = resources[2];
    expect(eta).toMatchObject({
      kind: 'Dashboard',
      name: 'eta',
      labels: { team: 'payments' },
      source: { file: join(dir, 'b/z.yml'), line: 14, col: 1 },
    });
    expect((eta?.spec as DashboardSpec).tiles[0]?.key).toBe('p99-latency');
  });

  it('reports every problem of the run, sorted by file and line', () => {
    write('a.yaml', dashboard('Bad_Name'));
    write('b.yaml', `${dashboard('ok')}---\n${dashboard('ok')}`);
    const { diagnostics } = loadManifests([dir], { env: {} });
    expect(diagnostics.map((d) => `${d.file?.slice(dir.length + 1)}:${d.line}:${d.col} ${d.code} ${d.path}`)).toEqual([
      'a.yaml:4:3 invalid metadata.name',
      'b.yaml:14:3 duplicate-identity metadata.name',
    ]);
  });

  it('interpolates ${env:} and ${file:} (relative to the manifest), keeping $${...} literal', () => {
    write('secrets/pg-password', 's3cret\n');
    const file = write(
      'pipes/orders.yaml',
      pipe(
        '  source:\n    postgres:\n      host: ${env:PG_HOST}\n      port: ${env:PG_PORT}\n      database: "$${env:NOT_ME}"\n      ' +
          'credentials: {username: app, password: "${file:../secrets/pg-password}"}\n',
      ),
    );
    const { resources, diagnostics } = loadManifests([file], { env: { PG_HOST: 'db.internal', PG_PORT: '5432' }, files: { roots: [dir] } });
    expect(diagnostics).toEqual([]);
    const spec = resources[0]?.spec as PipeSpec;
    expect(spec.source?.postgres).toMatchObject({
      host: 'db.internal',
      port: 5432,
      database: '${env:NOT_ME}',
      credentials: { password: 's3cret' },
    });
    const printed = JSON.stringify(maskSensitive(spec, sensitivePaths(pipeSpecSchema)));
    expect(printed).not.toContain('s3cret');
    expect(printed).toContain('"credentials":"(sensitive)"');
  });

  it('a variable named like an inherited property (constructor, toString, __proto__) is not set unless the environment has it', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const file = write(`inherited-${name}.yaml`, pipe(`  source:\n    postgres:\n      host: \${env:${name}}\n`));
      const { diagnostics, resources } = loadManifests([file], { env: {} });
      expect(resources).toEqual([]);
      expect(diagnostics).toEqual([
        expect.objectContaining({ severity: 'error', message: expect.stringContaining(`${name} is not set`) as string }),
      ]);
      const env = JSON.parse(`{"${name}": "db.internal"}`) as Record<string, string>;
      const set = loadManifests([file], { env });
      expect(set.diagnostics).toEqual([]);
      expect((set.resources[0]?.spec as PipeSpec).source).toMatchObject({ postgres: { host: 'db.internal' } });
    }
  });

  it('names the file and line of a missing variable; --allow-missing-env makes it a warning', () => {
    const file = write('p.yaml', pipe('  source:\n    postgres:\n      host: ${env:PG_HOST}\n'));
    const strict = loadManifests([file], { env: {} });
    expect(strict.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        file,
        line: 8,
        col: 13,
        path: 'spec.source.postgres.host',
        message: expect.stringContaining('PG_HOST is not set') as string,
      }),
    ]);
    expect(strict.resources).toEqual([]);
    const lenient = loadManifests([file], { env: {}, allowMissingEnv: true });
    expect(lenient.diagnostics.map((d) => d.severity)).toEqual(['warning']);
  });

  it('refuses files over 1 MiB and reports unreadable or missing paths', () => {
    const big = write('big.yaml', `# ${'x'.repeat(1024 * 1024)}\n`);
    expect(loadManifests([big], { env: {} }).diagnostics[0]).toMatchObject({
      code: 'limit',
      file: big,
      message: expect.stringContaining('1 MiB') as string,
    });
    expect(loadManifests([join(dir, 'nope')], { env: {} }).diagnostics[0]).toMatchObject({ code: 'missing-path' });
    const viaReader = loadManifests([big], {
      env: {},
      readFile: () => {
        throw new Error('EACCES');
      },
    });
    expect(viaReader.diagnostics[0]).toMatchObject({ code: 'io', message: expect.stringContaining('EACCES') as string });
  });

  it('places a finding made after the load by reading the file again, and at its first line when the file changed meanwhile', () => {
    const a = write('a.yaml', dashboard('checkout'));
    const b = write('b.yaml', `# the same dashboard again\n# two lines down\n${dashboard('checkout')}`);
    const reads = new Map<string, number>();
    const reader = (changeOnReread: boolean) => (path: string) => {
      const n = (reads.get(path) ?? 0) + 1;
      reads.set(path, n);
      const text = readFileSync(path, 'utf8');
      return changeOnReread && n > 1 ? `# edited\n${text}` : text;
    };
    const duplicate = (changeOnReread: boolean) => {
      reads.clear();
      const { diagnostics } = loadManifests([a, b], { env: {}, readFile: reader(changeOnReread) });
      return diagnostics.filter((d) => d.code === 'duplicate-identity');
    };
    // metadata.name of the second document, read again for its position (the load kept no text).
    expect(duplicate(false)).toMatchObject([{ file: b, line: 6 }]);
    expect(reads.get(b)).toBe(2);
    expect(duplicate(true)).toMatchObject([{ file: b, line: 1, col: 1 }]);
  });

  it('checks alert references against the Dashboard manifests of the whole run', () => {
    write('d.yaml', dashboard('checkout'));
    const alert = (dash: string, tile: string, name = tile) =>
      `apiVersion: obsync/v1\nkind: Alert\nmetadata: {name: a-${name}}\nspec:\n  dashboard: ${dash}\n  tile: ${tile}\n  interval: ` +
      `5m\n  threshold: 1\n  thresholdType: above\n  channel: {type: webhook, webhook: ops-slack}\n`;
    write(
      'e.yaml',
      `${alert('checkout', 'p99-latency')}---\n${alert('{id: abc}', '{id: t1}', 'unmanaged')}---\n${alert('checkout', 'p99')}`,
    );
    const { resources, diagnostics } = loadManifests([dir], { env: {} });
    expect(diagnostics.map((d) => d.code)).toEqual(['unknown-tile']);
    expect(diagnostics[0]?.message).toBe("tile 'p99' is not a tile key of Dashboard/checkout (keys: p99-latency)");
    expect(resources.map((r) => r.address)).toEqual(['Dashboard/checkout', 'Alert/a-p99-latency', 'Alert/a-unmanaged']);
  });

  it('rejects two Pipe manifests for the same pipe', () => {
    write('p.yaml', `${pipe('')}---\n${pipe('').replace('name: orders}', 'name: orders-again}')}`);
    expect(loadManifests([dir], { env: {} }).diagnostics.map((d) => d.code)).toEqual(['duplicate-pipe']);
  });
});

describe('follow-on errors of a manifest that did not load', () => {
  const alert = (dashboard: string) => `apiVersion: obsync/v1
kind: Alert
metadata: {name: a}
spec: {dashboard: ${dashboard}, tile: t, interval: 5m, threshold: 1, thresholdType: above, channel: {type: webhook, webhook: w}}
`;

  it('a reference to a manifest declared in another file that failed names that file and line', () => {
    const broken = write('dash.yaml', dashboard('checkout').replace('  name: checkout\n  tiles', '  name: checkout\n\ttiles'));
    write('alert.yaml', alert('checkout'));
    const errors = loadManifests([dir], { env: {} }).diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual(['reference-to-failed', 'yaml-syntax']);
    expect(errors[0]?.message).toBe(
      `dashboard 'checkout' is declared at ${broken}:1, but that manifest failed to load (its errors are listed above); fix them first`,
    );
  });

  it('a file whose names cannot be read is named as where the reference may be', () => {
    const broken = write('dash.yaml', `apiVersion: "obsync/v1\n${dashboard('checkout').split('\n').slice(1).join('\n')}`);
    write('alert.yaml', alert('checkout'));
    const ref = loadManifests([dir], { env: {} }).diagnostics.find((d) => d.code === 'reference-to-failed');
    expect(ref?.message).toBe(
      `dashboard 'checkout' was not found among the manifests that loaded; ${broken} failed to load and may declare it (its errors ` +
        `are listed above)`,
    );
  });

  it('a reference to a name no manifest declares is still "not the metadata.name of any"', () => {
    write('dash.yaml', dashboard('checkout').replace('displayType: markdown', 'displayTyp: markdown'));
    write('alert.yaml', alert('payments'));
    const ref = loadManifests([dir], { env: {} }).diagnostics.find((d) => d.path === 'spec.dashboard');
    expect(ref?.code).toBe('unknown-dashboard');
  });
});
