import { appendFile, mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LockError } from '../core/errors.js';
import type { InventoryEntry } from '../core/inventory.js';
import { openFileInventory } from './file-store.js';

const entry = (name: string, id: string | null, status: InventoryEntry['status'] = 'owned'): InventoryEntry => ({
  kind: 'Dashboard',
  name,
  id,
  status,
  naturalKey: `name:${name}`,
  updatedAt: '2026-01-01T00:00:00.000Z',
});

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'obsync-inv-'));
}

describe('file inventory', () => {
  it('keeps a note of the target across a reopen, written only under the lock; an unreadable one reads as none', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    expect(await inv.readNote('drift-history')).toBeNull();
    await inv.writeNote('drift-history', { version: 1, seen: ['x'] });
    await inv.close();
    const reader = await openFileInventory({ dir, target: 'prod', lock: false });
    expect(await reader.readNote('drift-history')).toEqual({ version: 1, seen: ['x'] });
    await expect(reader.writeNote('drift-history', {})).rejects.toMatchObject({ code: 'INVENTORY_READONLY' });
    expect((await stat(join(dir, 'notes', 'prod', 'drift-history.json'))).mode & 0o777).toBe(0o600);
    await writeFile(join(dir, 'notes', 'prod', 'drift-history.json'), '{"cut sh');
    expect(await reader.readNote('drift-history')).toBeNull();
    // Not a target of the state.
    expect(await readdir(dir)).not.toContain('drift-history.json');
  });

  it('keeps entries across a close and reopen', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.put(entry('a', '1'));
    await inv.put(entry('b', '2'));
    await inv.remove('Dashboard/a');
    await inv.close();
    const again = await openFileInventory({ dir, target: 'prod', lock: false });
    expect(again.entries().map((e) => e.name)).toEqual(['b']);
    expect(again.get('Dashboard/b')?.id).toBe('2');
  });

  it('keeps its entries apart from the objects put and read', async () => {
    const inv = await openFileInventory({ dir: await tempDir(), target: 'prod', lock: true });
    const put = { ...entry('a', '1'), tiles: { p99: 't1' } };
    await inv.put(put);
    put.tiles.p99 = 'changed';
    const read = inv.get('Dashboard/a');
    expect(read?.tiles).toEqual({ p99: 't1' });
    expect(() => Object.assign(read?.tiles ?? {}, { p99: 'x' })).toThrow(TypeError);
    await inv.close();
  });

  it('replays the journal of a process that was killed before compaction', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.put(entry('pending', null, 'pending'));
    // Simulate SIGKILL: no close(), and a torn final line.
    await appendFile(join(dir, 'prod.journal'), '{"op":"put","entry":{"kind":"Dash');
    await (await import('node:fs/promises')).rm(join(dir, 'prod.lock'));
    const reopened = await openFileInventory({ dir, target: 'prod', lock: true });
    expect(reopened.get('Dashboard/pending')).toMatchObject({ status: 'pending', id: null });
    await reopened.close();
  });

  it('refuses a second writer with a clear error instead of waiting', async () => {
    const dir = await tempDir();
    const first = await openFileInventory({ dir, target: 'prod', lock: true, command: 'apply' });
    await expect(openFileInventory({ dir, target: 'prod', lock: true })).rejects.toBeInstanceOf(LockError);
    await expect(openFileInventory({ dir, target: 'prod', lock: true })).rejects.toThrow(/locked by another obsync \(apply, pid \d+/);
    // Another target is independent.
    const other = await openFileInventory({ dir, target: 'staging', lock: true });
    await other.close();
    await first.close();
    const third = await openFileInventory({ dir, target: 'prod', lock: true });
    await third.close();
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    const dir = await tempDir();
    const { hostname } = await import('node:os');
    const { readlinkSync } = await import('node:fs');
    const pidns = readlinkSync('/proc/self/ns/pid');
    const future = new Date(Date.now() + 60_000).toISOString();
    await writeFile(
      join(dir, 'prod.lock'),
      JSON.stringify({ token: 'x', pid: 2 ** 22 + 12345, host: hostname(), pidns, since: 'x', expiresAt: future }),
    );
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.close();
  });

  it('compacts atomically into a private file and empties the journal', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.put(entry('a', '1'));
    await inv.flush();
    expect(await readFile(join(dir, 'prod.journal'), 'utf8')).toBe('');
    const snap = JSON.parse(await readFile(join(dir, 'prod.json'), 'utf8')) as { entries: unknown[] };
    expect(snap.entries).toHaveLength(1);
    expect((await stat(join(dir, 'prod.json'))).mode & 0o077).toBe(0);
    await inv.close();
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it(
    'rewrites the snapshot only when something changed since it was compacted, and compacts a journal left by a killed ' + 'process',
    async () => {
      const dir = await tempDir();
      const snapshot = join(dir, 'prod.json');
      const inv = await openFileInventory({ dir, target: 'prod', lock: true });
      await inv.put(entry('a', '1'));
      await inv.flush();
      // Each compaction renames a new file into place: an unchanged inode means nothing was rewritten.
      const compacted = (await stat(snapshot)).ino;
      await inv.flush();
      expect((await stat(snapshot)).ino).toBe(compacted);
      await inv.put(entry('b', '2'));
      await inv.flush();
      expect((await stat(snapshot)).ino).not.toBe(compacted);
      const second = (await stat(snapshot)).ino;
      await inv.remove('Dashboard/b');
      await inv.close();
      expect((await stat(snapshot)).ino).not.toBe(second);

      // Killed after an append: the next process's first flush compacts what it replayed.
      const killed = await openFileInventory({ dir, target: 'prod', lock: true });
      await killed.put(entry('c', '3'));
      await (await import('node:fs/promises')).rm(join(dir, 'prod.lock'));
      const next = await openFileInventory({ dir, target: 'prod', lock: true });
      await next.flush();
      expect(await readFile(join(dir, 'prod.journal'), 'utf8')).toBe('');
      const snap = JSON.parse(await readFile(snapshot, 'utf8')) as { entries: { name: string }[] };
      expect(snap.entries.map((e) => e.name)).toEqual(['a', 'c']);
      await next.close();
    },
  );
  it('keeps in the journal a line appended while a flush wrote the snapshot: killed before the next flush, it loses nothing', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.put(entry('a', '1'));
    const flushing = inv.flush();
    // The snapshot is being written: a create is recorded meanwhile (a line, before its request is sent).
    await inv.put(entry('late', null, 'pending'));
    await flushing;
    expect(await readFile(join(dir, 'prod.journal'), 'utf8')).toContain('"late"');
    // Killed here: no close, no second flush.
    await (await import('node:fs/promises')).rm(join(dir, 'prod.lock'));
    const next = await openFileInventory({ dir, target: 'prod', lock: true });
    expect(next.get('Dashboard/late')).toMatchObject({ status: 'pending', id: null });
    expect(next.get('Dashboard/a')?.id).toBe('1');
    // Its first flush compacts both.
    await next.flush();
    expect(await readFile(join(dir, 'prod.journal'), 'utf8')).toBe('');
    await next.close();
    const again = await openFileInventory({ dir, target: 'prod', lock: false });
    expect(again.entries().map((e) => e.name)).toEqual(['a', 'late']);
  });

  it('loses no recorded line, whatever is put, removed or moved while a flush writes, when the writer is then killed', async () => {
    const names = fc.constantFrom('a', 'b', 'c');
    const op = fc.record({
      op: fc.constantFrom('put' as const, 'remove' as const, 'move' as const),
      name: names,
      to: names,
      /** Recorded while a flush is between its serialisation and its truncation of the journal. */
      duringFlush: fc.boolean(),
      flushAfter: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        const dir = await tempDir();
        const inv = await openFileInventory({ dir, target: 'prod', lock: true });
        const model = new Map<string, string | null>();
        let version = 0;
        for (const o of ops) {
          const record = async () => {
            const address = `Dashboard/${o.name}` as const;
            if (o.op === 'put') {
              const id = `id-${(version += 1)}`;
              await inv.put(entry(o.name, id));
              model.set(address, id);
            } else if (o.op === 'remove') {
              await inv.remove(address);
              model.delete(address);
            } else if (model.has(address) && !model.has(`Dashboard/${o.to}`)) {
              await inv.move(address, `Dashboard/${o.to}` as const, '2026-01-02T00:00:00.000Z');
              model.set(`Dashboard/${o.to}`, model.get(address) ?? null);
              model.delete(address);
            }
          };
          if (o.duringFlush) {
            const flushing = inv.flush();
            await record();
            await flushing;
          } else await record();
          if (o.flushAfter) await inv.flush();
        }
        // Killed: no close, no last flush.
        await (await import('node:fs/promises')).rm(join(dir, 'prod.lock'));
        const next = await openFileInventory({ dir, target: 'prod', lock: false });
        expect(new Map(next.entries().map((e) => [`${e.kind}/${e.name}`, e.id]))).toEqual(model);
      }),
      { numRuns: 60 },
    );
  });

  it('fingerprints with a key kept in the state directory, stable across runs', async () => {
    const dir = await tempDir();
    const a = await openFileInventory({ dir, target: 'prod', lock: false });
    const b = await openFileInventory({ dir, target: 'prod', lock: false });
    expect(a.fingerprint('s3cret')).toBe(b.fingerprint('s3cret'));
    expect(a.fingerprint('s3cret')).not.toContain('s3cret');
    expect(a.fingerprint('s3cret')).not.toBe(a.fingerprint('s3cret2'));
    const other = await openFileInventory({ dir: await tempDir(), target: 'prod', lock: false });
    expect(other.fingerprint('s3cret')).not.toBe(a.fingerprint('s3cret'));
  });

  it('reports a corrupt inventory with what to do', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'prod.json'), JSON.stringify({ version: 1, target: 'prod', entries: [{ kind: 'Nope' }] }));
    await expect(openFileInventory({ dir, target: 'prod', lock: true })).rejects.toThrow(/not readable/);
    // The failed open released its lock.
    await writeFile(join(dir, 'prod.json'), JSON.stringify({ version: 1, target: 'prod', entries: [] }));
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.close();
  });

  it('moves an entry in one journal line: after a kill before compaction the rename is whole, with its id, tiles and since', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.put({ ...entry('old', '1'), tiles: { p99: 't1' }, specHash: 'h' });
    await inv.flush();
    const moved = await inv.move('Dashboard/old', 'Dashboard/new', '2026-02-02T00:00:00.000Z');
    expect(moved).toMatchObject({
      kind: 'Dashboard',
      name: 'new',
      id: '1',
      tiles: { p99: 't1' },
      specHash: 'h',
      updatedAt: '2026-02-02T00:00:00.000Z',
    });
    const journal = (await readFile(join(dir, 'prod.journal'), 'utf8')).trim().split('\n');
    expect(journal).toHaveLength(1);
    expect(JSON.parse(journal[0] ?? '')).toMatchObject({ op: 'move', from: 'Dashboard/old', entry: { name: 'new', id: '1' } });
    // SIGKILL: no close(); the next writer replays the journal.
    await (await import('node:fs/promises')).rm(join(dir, 'prod.lock'));
    const reopened = await openFileInventory({ dir, target: 'prod', lock: true });
    expect(reopened.entries().map((e) => `${e.kind}/${e.name} ${e.id ?? ''}`)).toEqual(['Dashboard/new 1']);
    await reopened.close();
    const snapshot = JSON.parse(await readFile(join(dir, 'prod.json'), 'utf8')) as { since: Record<string, string> };
    // Owned since it was first recorded, under whichever name.
    expect(snapshot.since).toEqual({ 'Dashboard/new': '2026-01-01T00:00:00.000Z' });
  });

  it('refuses a move from an unknown address, onto an owned one, or to another kind, and writes nothing', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.put(entry('a', '1'));
    await inv.put(entry('b', '2'));
    await inv.flush();
    await expect(inv.move('Dashboard/nope', 'Dashboard/c', 'now')).rejects.toThrow(/Dashboard\/nope is not in the state of target 'prod'/);
    await expect(inv.move('Dashboard/a', 'Dashboard/b', 'now')).rejects.toThrow(
      /Dashboard\/b is already in the state of target 'prod' \(id 2\)/,
    );
    await expect(inv.move('Dashboard/a', 'Alert/a', 'now')).rejects.toThrow(/a rename keeps the kind/);
    expect(await readFile(join(dir, 'prod.journal'), 'utf8').catch(() => '')).toBe('');
    expect(inv.entries().map((e) => e.name)).toEqual(['a', 'b']);
    await inv.close();
  });

  it('refuses a move without the writer lease', async () => {
    const dir = await tempDir();
    const writer = await openFileInventory({ dir, target: 'prod', lock: true });
    await writer.put(entry('a', '1'));
    await writer.close();
    const reader = await openFileInventory({ dir, target: 'prod', lock: false });
    await expect(reader.move('Dashboard/a', 'Dashboard/b', 'now')).rejects.toThrow(/opened read-only/);
    expect(reader.get('Dashboard/a')?.id).toBe('1');
  });

  it('refuses a second owner of one object, and leaves out (named, kept on disk) both owners of one owned twice (issue 53)', async () => {
    const dir = await tempDir();
    const inv = await openFileInventory({ dir, target: 'prod', lock: true });
    await inv.put(entry('a', '1'));
    await expect(inv.put(entry('b', '1'))).rejects.toMatchObject({
      code: 'STATE_OWNER',
      message: expect.stringContaining('Dashboard/a owns that object already') as unknown,
    });
    await inv.close();
    expect(await readFile(join(dir, 'prod.journal'), 'utf8')).toBe('');
    // Two owners written by hand (or an older obsync): neither is taken, both are named, and the file keeps them for the user to decide.
    const doubled = { version: 1, target: 'prod', entries: [entry('a', '1'), entry('b', '1'), entry('c', '2')] };
    await writeFile(join(dir, 'prod.json'), JSON.stringify(doubled));
    const again = await openFileInventory({ dir, target: 'prod', lock: true });
    expect(again.entries().map((e) => e.name)).toEqual(['c']);
    expect(again.skipped().map((r) => [r.key, r.reason])).toEqual([
      ['Dashboard/a', 'it owns Dashboard 1, which Dashboard/b also owns: one object has one owner'],
      ['Dashboard/b', 'it owns Dashboard 1, which Dashboard/a also owns: one object has one owner'],
    ]);
    await expect(again.put(entry('d', '1'))).rejects.toMatchObject({ code: 'STATE_OWNER' });
    await again.put(entry('e', '3'));
    await again.close();
    expect(
      (JSON.parse(await readFile(join(dir, 'prod.json'), 'utf8')) as { entries: InventoryEntry[] }).entries.map((e) => e.name),
    ).toEqual(['a', 'b', 'c', 'e']);
    // Forgetting one owner (`obsync state rm`) repairs it: the other is taken again.
    const repair = await openFileInventory({ dir, target: 'prod', lock: true });
    await repair.remove('Dashboard/b');
    await expect(repair.put(entry('f', '1'))).rejects.toMatchObject({ code: 'STATE_OWNER' });
    await repair.close();
    const repaired = await openFileInventory({ dir, target: 'prod', lock: false });
    expect(repaired.entries().map((e) => e.name)).toEqual(['a', 'c', 'e']);
    expect(repaired.skipped()).toEqual([]);
  });
});
