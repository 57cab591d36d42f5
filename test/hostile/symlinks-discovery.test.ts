/**
 * Issue 13, item 4: manifests mounted from a Kubernetes ConfigMap (`file -> ..data/file`,
 * `..data -> ..2024_…`) or swapped in by git-sync (`root -> .git/worktrees/<hash>`) are links;
 * discovery skipped them, so `validate` said 0 resources and `plan --prune` offered to delete
 * everything owned. Links are followed (each manifest read once, loops walked once) and a tree
 * with no manifest says so, naming the paths searched.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { assertBuilt, runCli } from '../support/cli.js';

let dir: string;

const dashboard = (name: string) =>
  `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec:\n  name: ${name}\n  tiles: []\n`;

/** The layout kubelet writes for a ConfigMap volume. */
function configMap(mount: string, files: Record<string, string>): void {
  const stamp = '..2024_01_01_00_00_00.000000001';
  mkdirSync(join(mount, stamp), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(mount, stamp, name), text);
  symlinkSync(stamp, join(mount, '..data'));
  for (const name of Object.keys(files)) symlinkSync(join('..data', name), join(mount, name));
}

beforeAll(() => assertBuilt());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-hostile-links-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('manifest discovery', () => {
  it('reads a ConfigMap mount: every manifest once, through its link', () => {
    const mount = join(dir, 'manifests');
    configMap(mount, { 'a.yaml': dashboard('alpha'), 'b.yaml': dashboard('beta') });
    const { resources, diagnostics } = loadManifests([mount], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => [r.address, r.source.file])).toEqual([
      ['Dashboard/alpha', join(mount, 'a.yaml')],
      ['Dashboard/beta', join(mount, 'b.yaml')],
    ]);
  });

  it('reads a git-sync root (a link to a hidden worktree), and a tree with a link loop once', () => {
    const worktree = join(dir, '.git/worktrees/3f2a');
    mkdirSync(join(worktree, 'team'), { recursive: true });
    writeFileSync(join(worktree, 'team/a.yaml'), dashboard('alpha'));
    // Two links back up: walked without memory, the paths would branch without end.
    symlinkSync('..', join(worktree, 'team/loop'));
    symlinkSync('../team', join(worktree, 'team/loop2'));
    symlinkSync(worktree, join(dir, 'root'));
    const { resources, diagnostics } = loadManifests([join(dir, 'root')], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => r.address)).toEqual(['Dashboard/alpha']);
  });

  it('reads a file once when two links, or two of the paths given, lead to it', () => {
    const mount = join(dir, 'manifests');
    configMap(mount, { 'a.yaml': dashboard('alpha') });
    symlinkSync('a.yaml', join(mount, 'also-a.yaml'));
    const { resources, diagnostics } = loadManifests([mount, join(mount, 'a.yaml'), join(mount, '..data')], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => r.address)).toEqual(['Dashboard/alpha']);
  });

  it('reports a dangling manifest link (a half-swapped mount) as an error instead of skipping it (discovery fails closed)', () => {
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm/a.yaml'), dashboard('alpha'));
    symlinkSync('..data/gone.yaml', join(dir, 'm/gone.yaml'));
    const { diagnostics } = loadManifests([join(dir, 'm')], { env: {} });
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', code: 'broken-link', file: join(dir, 'm/gone.yaml') })]);
  });

  it('validate counts the mounted manifests, and says so when there are none, naming the paths searched', async () => {
    configMap(join(dir, 'manifests'), { 'a.yaml': dashboard('alpha'), 'b.yaml': dashboard('beta') });
    expect((await runCli(['validate', 'manifests'], { cwd: dir })).stdout).toBe('valid: 2 resource(s)\n');
    mkdirSync(join(dir, 'empty'));
    const empty = await runCli(['validate', 'empty'], { cwd: dir });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe(`warning: no manifests found: searched empty (no .yaml/.yml files)\nvalid: 0 resource(s), 1 warning(s)\n`);
  });

  it('a plan with --prune over a ConfigMap mount sees what it applied: nothing to delete', async () => {
    configMap(join(dir, 'manifests'), { 'a.yaml': dashboard('alpha'), 'b.yaml': dashboard('beta') });
    const applied = await runCli(['apply', 'manifests', '--auto-approve'], { cwd: dir });
    expect(applied.stdout).toContain('2 created');
    const plan = await runCli(['plan', 'manifests', '--prune'], { cwd: dir });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });
});
