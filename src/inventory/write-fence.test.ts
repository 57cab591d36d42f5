import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../core/errors.js';
import type { WriterLease } from './backend.js';
import { FileStateBackend } from './file-backend.js';

const timing = { leaseMs: 60_000, renewMs: 20_000 };

function backend(): { backend: FileStateBackend } {
  return { backend: new FileStateBackend(mkdtempSync(join(tmpdir(), 'obsync-fence-')), timing) };
}

async function lease(b: FileStateBackend): Promise<WriterLease> {
  const attempt = await b.tryLease('prod', 'run');
  if (!('lease' in attempt)) throw new Error('no lease');
  return attempt.lease;
}

describe("an inventory's write fence (the gate of its run's service writes)", () => {
  it('passes while the lease is held, and refuses once it is given up', async () => {
    const { backend: b } = backend();
    const inventory = await b.openInventory('prod', { mode: 'write', command: 'apply' });
    const fence = inventory.writeFence();
    expect(() => fence.check()).not.toThrow();
    await inventory.close();
    expect(() => fence.check()).toThrow(LeaseLostError);
  });

  it("refuses a daemon's writes under a lease other than the one its run read the inventory under", async () => {
    const { backend: b } = backend();
    let current: WriterLease | null = await lease(b);
    const inventory = await b.openInventory('prod', { mode: 'elected', lease: () => current });
    const fence = inventory.writeFence();
    expect(() => fence.check()).not.toThrow();
    // Leadership lost and won again while a run was under way: its remaining writes must not go out.
    await current.release();
    current = await lease(b);
    expect(() => fence.check()).toThrow(/changed hands since the inventory was read/);
    await inventory.refresh();
    expect(() => fence.check()).not.toThrow();
    current = null;
    expect(() => fence.check()).toThrow(/read-only/);
    await inventory.close();
  });

  it('refuses every write of a read-only inventory', async () => {
    const { backend: b } = backend();
    const inventory = await b.openInventory('prod', { mode: 'read' });
    expect(() => inventory.writeFence().check()).toThrow(/opened read-only/);
    await inventory.close();
  });
});
