/**
 * Issue 52, item 4 (and issue 40 item 5's plan-time paths): every output names a manifest as the
 * project does (`m/alert.yaml`), as `validate` always has — never the runner's absolute checkout
 * path (the markdown plan's error lines carried it; GitHub cannot attach an annotation to it).
 * In process against one sandbox: plan in every format, the load errors plan and apply print, and
 * the plan apply shows before it asks.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { alertYaml, dashboardYaml } from '../support/plans.js';

let sandbox: SandboxHandle;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
  dir = mkdtempSync(join(tmpdir(), 'obsync-paths-'));
  writeFileSync(
    join(dir, 'obsync.yaml'),
    `apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\nstate: {backend: file, path: .state}\ntargets:\n  - {name: sh, variant: ` +
      `self-hosted, baseUrl: ${sandbox.url}, credentials: {apiKey: ${sandbox.credentials.apiKey}}}\n`,
  );
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm/board.yaml'), dashboardYaml('board', 'Board', [{ key: 'p99', name: 'p99', level: 0.99 }]));
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

async function obsync(...args: string[]): Promise<{ code: number; output: string }> {
  const { io, out, err } = fakeIO(dir);
  const code = await runInProcess(io, args);
  return { code, output: `${out()}\n${err()}` };
}

describe('paths relative to the project', () => {
  it('in the plan-time errors of plan (text, JSON, markdown, GitHub annotations) and of the plan apply shows', async () => {
    // A webhook the service does not have: known only when planning.
    const alert = alertYaml('board-p99', { dashboard: 'board', tile: 'p99', threshold: 1, interval: '5m', webhook: 'no-such-webhook' });
    writeFileSync(join(dir, 'm/alert.yaml'), alert);
    for (const format of ['text', 'json', 'markdown', 'github']) {
      const { code, output } = await obsync('plan', '--output', format);
      expect(code, format).toBe(1);
      expect(output, format).toContain("webhook 'no-such-webhook' does not exist");
      expect(output, format).toMatch(
        format === 'json' ? /"file": "m\/alert\.yaml"/ : format === 'github' ? /file=m\/alert\.yaml,line=4/ : /m\/alert\.yaml:4:/,
      );
      // The saved plan's manifest paths (what `apply plan.json` reads) are the only absolute ones.
      const shown = format === 'json' ? output.replace(/"manifests": \[[^\]]*\]/g, '').replace(/"config": "[^"]*"/g, '') : output;
      expect(shown, format).not.toContain(dir);
    }
    const applied = await obsync('apply', '--auto-approve');
    expect(applied.code).toBe(1);
    expect(applied.output).toMatch(/m\/alert\.yaml:4:\d+: error: Alert\/board-p99: webhook 'no-such-webhook' does not exist/);
    expect(applied.output).not.toContain(dir);
  });

  it('in a plan-time unknown reference, with the closest live name, as validate suggests (issue 40.5)', async () => {
    writeFileSync(
      join(dir, 'm/alert.yaml'),
      alertYaml('board-p99', { dashboard: 'board', tile: 'p99', threshold: 1, interval: '5m', webhook: 'ops-slak' }),
    );
    const { code, output } = await obsync('plan');
    expect(code).toBe(1);
    expect(output).toMatch(
      /m\/alert\.yaml:4:\d+: error: Alert\/board-p99: webhook 'ops-slak' does not exist on the target — did you mean 'ops-slack'\?/,
    );
    expect(output).not.toContain(dir);
  });

  it('in the manifest errors plan and apply print before they stop, and in the messages that name another file', async () => {
    writeFileSync(
      join(dir, 'm/alert.yaml'),
      alertYaml('board', { dashboard: 'board', tile: 'p99', threshold: 1, interval: '5m', webhook: 'ops-slack' }),
    );
    // The same identity twice: the message names the other file.
    writeFileSync(
      join(dir, 'm/again.yaml'),
      alertYaml('board', { dashboard: 'board', tile: 'p99', threshold: 2, interval: '5m', webhook: 'ops-slack' }),
    );
    for (const args of [['plan'], ['plan', '--output', 'github'], ['apply', '--auto-approve'], ['validate']]) {
      const { code, output } = await obsync(...args);
      expect(code, args.join(' ')).toBe(1);
      expect(output, args.join(' ')).toMatch(/Alert\/board is already defined at m\/(alert|again)\.yaml:1;/);
      expect(output, args.join(' ')).not.toContain(dir);
    }
    rmSync(join(dir, 'm/again.yaml'));
  });

  it("in obsync.yaml's own errors, which say what a URL setting wants (issue 40.5)", async () => {
    writeFileSync(
      join(dir, 'bad.yaml'),
      'apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\ntargets:\n  - {name: sh, variant: self-hosted, baseUrl: hyperdx.example.com, ' +
        'credentials: {apiKey: k}}\n',
    );
    const { code, output } = await obsync('plan', '--config', 'bad.yaml');
    expect(code).not.toBe(0);
    expect(output).toContain('error: bad.yaml is invalid:');
    expect(output).toMatch(/bad\.yaml:5:\d+: error: the base URL must be http\(s\):\/\/host\[:port\]\[\/path\] .*: it has no scheme/);
    expect(output).not.toContain(dir);
    rmSync(join(dir, 'bad.yaml'));
  });
});
