/**
 * Issue 40, item 2: CI gates on the JSON plan must not pass when a target could not be planned.
 * A Terraform-style gate, `obsync plan --output json | jq -e '.errored == false'`, passed: the
 * top-level verdicts covered only the targets planned, and a lone target that failed printed no
 * document at all (jq reads no input as success).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI } from '../support/cli.js';

let dir: string;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'obsync-ci-gates-'));
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm', 'd.yaml'), 'apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec: {name: D, tiles: []}\n');
  writeFileSync(
    join(dir, 'obsync.yaml'),
    [
      'apiVersion: obsync/v1',
      'kind: Config',
      'manifests: [m]',
      'targets:',
      '  - {name: good, variant: sandbox, api: hosted, data: .obsync/good}',
      '  - {name: down, variant: self-hosted, baseUrl: "http://127.0.0.1:1", credentials: {apiKey: k}}',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A CI line, `obsync ... | jq -e FILTER`: the exit code is jq's (no pipefail, as many CI shells run it). The document is kept for more
 * gates.
 */
function gate(args: string, filter: string): number | null {
  const obsync = `"${process.execPath}" "${CLI}" ${args}`;
  return spawnSync('sh', ['-c', `${obsync} 2>/dev/null | tee doc.json | jq -e '${filter}' >/dev/null`], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
  }).status;
}

/** Another gate on the document the last `gate` printed. */
function again(filter: string): number | null {
  return spawnSync('jq', ['-e', filter, 'doc.json'], { cwd: dir }).status;
}

const doc = () => JSON.parse(readFileSync(join(dir, 'doc.json'), 'utf8')) as unknown;

describe('jq gates on the JSON plan', () => {
  it('fail when one of several targets could not be planned', () => {
    expect(gate('plan --output json', '.errored == false')).toBe(1);
    expect(again('.applyable')).toBe(1);
    expect(doc()).toMatchObject({ errored: true, applyable: false, failed: [{ target: 'down' }] });
  });

  it('fail when the only target could not be planned: a document is printed all the same', () => {
    expect(gate('plan --target down --output json', '.errored == false')).toBe(1);
    expect(doc()).toMatchObject({ errored: true, applyable: false, targets: [], failed: [{ target: 'down' }] });
  });
});
