/**
 * Issue 13, item 13 (part): an inventory that cannot be read is an error naming the file and
 * what to do, never an empty inventory (which would disown everything and re-create it). In the
 * journal only a torn last line (a process killed mid-append) is skipped, and cut off so the
 * next append cannot fuse with it; a damaged line before it is an error naming the line.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InventoryEntry } from '../../src/core/inventory.js';
import { openFileInventory } from '../../src/inventory/file-store.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, runCli } from '../support/cli.js';

const entry = (name: string, id: string): InventoryEntry => ({
  kind: 'Dashboard',
  name,
  id,
  status: 'owned',
  naturalKey: `name:${name}`,
  updatedAt: '2026-01-01T00:00:00.000Z',
});

function stateDir(): string {
  return mkdtempSync(join(tmpdir(), 'obsync-inv-hostile-'));
}

describe('an unreadable inventory', () => {
  it('stops plan and apply with the file named and what to do, and writes nothing', async () => {
    assertBuilt();
    const sandbox = await startSandbox({ port: 0, rateLimit: 'off' });
    const dir = stateDir();
    try {
      mkdirSync(join(dir, 'manifests'));
      writeFileSync(
        join(dir, 'manifests/d.yaml'),
        `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: inv}\nspec:\n  name: Inventory test\n  tiles: []\n`,
      );
      writeFileSync(
        join(dir, 'obsync.yaml'),
        `apiVersion: obsync/v1\nkind: Config\nmanifests: [manifests]\ntargets:\n  - {name: sb, variant: self-hosted, baseUrl: ` +
          `"${sandbox.url}", credentials: {apiKey: ${sandbox.credentials.apiKey}}}\n`,
      );
      mkdirSync(join(dir, '.obsync/state'), { recursive: true });
      const truncated = '{"version":1,"target":"sb","entries":[{"kind":"Dashboard","name":"inv","id":"abc"';
      writeFileSync(join(dir, '.obsync/state/sb.json'), truncated);
      for (const args of [['plan'], ['apply', '--auto-approve', '--prune']]) {
        const res = await runCli(args, { cwd: dir });
        expect(res.code).toBe(1);
        expect(res.stderr).toContain(`the inventory ${join(dir, '.obsync/state/sb.json')} is not readable: not valid JSON`);
        expect(res.stderr).toMatch(/hint: restore it from a copy, or move it away/);
      }
      expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
      expect(readFileSync(join(dir, '.obsync/state/sb.json'), 'utf8')).toBe(truncated);
    } finally {
      await sandbox.close();
    }
  });

  it('names a damaged journal line that is not the last one instead of skipping it', async () => {
    const dir = stateDir();
    const journal = join(dir, 'prod.journal');
    const line = (e: InventoryEntry) => `${JSON.stringify({ op: 'put', entry: e })}\n`;
    writeFileSync(journal, `{"op":"put","entry":{"kind":"Dash\n${line(entry('b', '2'))}`);
    await expect(openFileInventory({ dir, target: 'prod', lock: false })).rejects.toThrow(
      `the inventory journal ${journal} is damaged at line 1: not valid JSON`,
    );
    await expect(openFileInventory({ dir, target: 'prod', lock: true })).rejects.toMatchObject({
      code: 'INVENTORY_CORRUPT',
      hint: expect.stringMatching(/fix or delete line 1/) as unknown,
    });
  });

  it('skips a torn last line and keeps the writes appended after it', async () => {
    const dir = stateDir();
    // A process killed mid-append: one whole line, then a torn one without its newline.
    writeFileSync(join(dir, 'prod.journal'), `${JSON.stringify({ op: 'put', entry: entry('a', '1') })}\n{"op":"put","entry":{"kind":"Dash`);
    const reader = await openFileInventory({ dir, target: 'prod', lock: false });
    expect(reader.entries().map((e) => e.name)).toEqual(['a']);
    const writer = await openFileInventory({ dir, target: 'prod', lock: true });
    await writer.put(entry('b', '2'));
    // Killed again before compaction: the journal alone must hold both.
    const reread = await openFileInventory({ dir, target: 'prod', lock: false });
    expect(
      reread
        .entries()
        .map((e) => e.name)
        .sort(),
    ).toEqual(['a', 'b']);
    await writer.close();
  });
});
