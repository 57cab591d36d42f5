/**
 * Issue 13, item 8 (files): `${file:/etc/passwd}` in a dashboard name reached the markdown plan,
 * and `${file:/dev/zero}` grew to 16 GB. `${file:}` is confined to the config's directory tree
 * (after symlinks) unless allowed by obsync.yaml or --allow-file-outside, and reads only regular
 * files of at most 1 MiB.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { loadManifests } from '../../src/manifests/load.js';
import { assertBuilt, runCli } from '../support/cli.js';

let root: string;
let project: string;
let outside: string;

const dashboard = (ref: string) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: files}
spec:
  name: "${ref}"
  tiles: []
`;

const CONFIG = 'apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\n';

function manifest(ref: string): void {
  writeFileSync(join(project, 'manifests/d.yaml'), dashboard(ref));
}

function loadProject(allowOutside: boolean | string[] = false) {
  return loadManifests([join(project, 'manifests')], { env: {}, files: { roots: [project], allowOutside } });
}

const codes = (r: ReturnType<typeof loadProject>) => r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);

beforeAll(() => assertBuilt());
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'obsync-hostile-files-'));
  project = join(root, 'project');
  outside = join(root, 'outside');
  mkdirSync(join(project, 'manifests'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(project, 'obsync.yaml'), CONFIG);
  writeFileSync(join(outside, 'secret.txt'), 'outside-secret-text-5521\n');
  writeFileSync(join(project, 'title.txt'), 'Checkout\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('${file:} confinement', () => {
  it('keeps /etc/passwd out of the markdown plan', async () => {
    manifest('${file:/etc/passwd}');
    const res = await runCli(['plan', '--output', 'markdown'], { cwd: project });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      new RegExp(
        String.raw`d\.yaml:5:\d+: error: \$\{file:\/etc\/passwd\}: \/etc\/passwd is outside .*project; \$\{file:\} reads only ` +
          String.raw`files below the directory of obsync\.yaml — allow more with allowFileOutside in obsync\.yaml or ` +
          String.raw`--allow-file-outside`,
      ),
    );
    expect(res.stdout + res.stderr).not.toMatch(/root:x?:0:0/);
  });

  it('reads inside the tree, and refuses an escape by "..", by an absolute path or by a symlink', () => {
    manifest('${file:../title.txt}');
    expect(loadProject().resources.map((r) => (r.spec as { name: string }).name)).toEqual(['Checkout']);
    manifest('${file:../../outside/secret.txt}');
    expect(codes(loadProject())).toEqual(['file-outside']);
    manifest(`\${file:${join(outside, 'secret.txt')}}`);
    expect(codes(loadProject())).toEqual(['file-outside']);
    symlinkSync(join(outside, 'secret.txt'), join(project, 'innocent.txt'));
    manifest('${file:../innocent.txt}');
    const viaLink = loadProject();
    expect(codes(viaLink)).toEqual(['file-outside']);
    expect(JSON.stringify(viaLink)).not.toContain('outside-secret-text');
  });

  it('reads outside when allowed: --allow-file-outside, or allowFileOutside in obsync.yaml (anywhere, or listed folders)', async () => {
    manifest(`\${file:${join(outside, 'secret.txt')}}`);
    expect((await runCli(['validate'], { cwd: project })).code).toBe(1);
    const flagged = await runCli(['validate', '--allow-file-outside'], { cwd: project });
    expect(flagged.stdout).toContain('valid: 1 resource(s)');
    writeFileSync(join(project, 'obsync.yaml'), `${CONFIG}allowFileOutside: [../outside]\n`);
    expect((await runCli(['validate'], { cwd: project })).stdout).toContain('valid: 1 resource(s)');
    writeFileSync(join(project, 'obsync.yaml'), `${CONFIG}allowFileOutside: true\n`);
    expect((await runCli(['validate'], { cwd: project })).stdout).toContain('valid: 1 resource(s)');
  });

  it("confines obsync.yaml's own ${file:} to its directory", () => {
    writeFileSync(
      join(project, 'obsync.yaml'),
      `${CONFIG}targets:\n  - {name: t, variant: self-hosted, baseUrl: "http://127.0.0.1:1/\${file:${join(outside, 'secret.txt')}}"}\n`,
    );
    const loaded = loadConfig(join(project, 'obsync.yaml'), {});
    expect(loaded.diagnostics.map((d) => d.code)).toEqual(['file-outside']);
    // Its own literal allowFileOutside (not one made by a reference) widens it.
    writeFileSync(
      join(project, 'obsync.yaml'),
      `${CONFIG}allowFileOutside: true\ntargets:\n  - {name: t, variant: self-hosted, baseUrl: ` +
        `"http://127.0.0.1:1/\${file:${join(outside, 'secret.txt')}}"}\n`,
    );
    expect(loadConfig(join(project, 'obsync.yaml'), {}).diagnostics.map((d) => d.code)).not.toContain('file-outside');
  });
});

describe('${file:} reads only regular files of at most 1 MiB', () => {
  it('refuses a device at once, without reading it (/dev/zero)', () => {
    manifest('${file:/dev/zero}');
    const result = loadProject(true);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'bad-reference',
        message: expect.stringContaining('/dev/zero is not a regular file (a device)') as string,
      }),
    ]);
  });

  it('refuses a FIFO without waiting for a writer', () => {
    try {
      execFileSync('mkfifo', [join(project, 'pipe')]);
    } catch {
      return; // no mkfifo on this system
    }
    manifest('${file:../pipe}');
    expect(loadProject().diagnostics).toEqual([
      expect.objectContaining({ message: expect.stringContaining('is not a regular file (a FIFO)') as string }),
    ]);
  });

  it('refuses a file over 1 MiB', () => {
    writeFileSync(join(project, 'big.txt'), 'x'.repeat(1024 * 1024 + 1));
    manifest('${file:../big.txt}');
    expect(loadProject().diagnostics).toEqual([
      expect.objectContaining({ code: 'bad-reference', message: expect.stringContaining('is larger than 1 MiB') as string }),
    ]);
  });
});
