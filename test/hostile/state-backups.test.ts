/**
 * Issue 13, item 5: backups of pruned objects live inside the state directory. They used to go
 * to dirname(state)/backups — with the image's OBSYNC_STATE_DIR=/var/lib/obsync that is
 * /var/lib/backups, outside the volume and not writable, so every prune failed in the container.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';

const dashboard = (name: string) =>
  `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: ${name}}\nspec:\n  name: Backup ${name}\n  tiles: []\n`;

describe('backups of pruned objects', () => {
  it('are written under OBSYNC_STATE_DIR (the container volume), never beside it', async () => {
    assertBuilt();
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    const root = mkdtempSync(join(tmpdir(), 'obsync-backups-'));
    const stateDir = join(root, 'var/lib/obsync');
    try {
      mkdirSync(join(root, 'manifests'));
      writeFileSync(join(root, 'manifests/a.yaml'), dashboard('keep'));
      writeFileSync(join(root, 'manifests/b.yaml'), dashboard('gone'));
      writeFileSync(
        join(root, 'obsync.yaml'),
        `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: ` +
          `"${sandbox.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}}\n`,
      );
      const env = { OBSYNC_STATE_DIR: stateDir };
      expect((await runCli(['apply', '--auto-approve'], { cwd: root, env })).code).toBe(0);
      // Deleted, not emptied: an emptied file's objects are not pruned (test/hostile/prune-emptied-file.test.ts).
      rmSync(join(root, 'manifests/b.yaml'));
      const pruned = await runCli(['apply', '--auto-approve', '--prune'], { cwd: root, env });
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(pruned.stderr).toMatch(/Dashboard\/gone: deleted/);
      const files = readdirSync(join(stateDir, 'backups'), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.json'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/sb\/Dashboard-gone\.json$/);
      const backup = JSON.parse(readFileSync(join(stateDir, 'backups', files[0] ?? ''), 'utf8')) as {
        address: string;
        object: { name: string };
      };
      expect(backup).toMatchObject({ address: 'Dashboard/gone', object: { name: 'Backup gone' } });
      expect(existsSync(join(root, 'var/lib/backups'))).toBe(false);
    } finally {
      await sandbox.close();
    }
  });
});
