import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStateBackend } from './file-backend.js';
import { LeaseElector } from './elector.js';

const timing = { leaseMs: 1_200, renewMs: 200 };

async function until(probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('LeaseElector', () => {
  it('elects one leader per target; the standby takes over when the leader steps down', async () => {
    const backend = new FileStateBackend(mkdtempSync(join(tmpdir(), 'obsync-elect-')), timing);
    const a = new LeaseElector(backend, 'prod', { command: 'run' });
    const b = new LeaseElector(backend, 'prod', { command: 'run' });
    expect(a.isStandby()).toBe(false); // not decided yet: not ready as standby either
    const other = new LeaseElector(backend, 'staging', { command: 'run' });
    const seen: string[] = [];
    a.start((l) => seen.push(`a:${l}`));
    await until(() => a.isLeader());
    b.start((l) => seen.push(`b:${l}`));
    other.start(() => undefined);
    await until(() => other.isLeader());
    await until(() => /led by another obsync \(run, pid \d+/.test(b.describe()));
    expect(b.isLeader()).toBe(false);
    expect(b.isStandby()).toBe(true);
    expect(b.signal).toBeUndefined();
    await a.stop();
    await until(() => b.isLeader());
    expect(seen).toEqual(['a:true', 'b:true']);
    await b.stop();
    await other.stop();
  });

  it('ends leadership, and aborts its signal, when the lease is taken away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-elect-'));
    const elector = new LeaseElector(new FileStateBackend(dir, timing), 'prod', { command: 'run' });
    const seen: boolean[] = [];
    elector.start((l) => seen.push(l));
    await until(() => elector.isLeader());
    const signal = elector.signal;
    const lock = JSON.parse(readFileSync(join(dir, 'prod.lock'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'prod.lock'), JSON.stringify({ ...lock, token: 'another-replica', pid: 1, host: 'elsewhere' }));
    await until(() => !elector.isLeader());
    expect(signal?.aborted).toBe(true);
    expect(seen).toEqual([true, false]);
    await elector.stop();
  });

  it('competes only for a target assigned to it, and hands the lease over when the assignment moves it', async () => {
    const backend = new FileStateBackend(mkdtempSync(join(tmpdir(), 'obsync-elect-')), timing);
    let owner: 'a' | 'b' = 'b';
    const assignment = (who: 'a' | 'b') => () =>
      owner === who ? { mine: true as const } : { mine: false as const, owner: `assigned to replica ${owner}` };
    const a = new LeaseElector(backend, 'prod', { command: 'run', assignment: assignment('a') });
    const b = new LeaseElector(backend, 'prod', { command: 'run', assignment: assignment('b') });
    const seen: string[] = [];
    // a starts first, but the target is b's: a stands by without taking the free lease.
    a.start((l) => seen.push(`a:${l}`));
    await until(() => a.isStandby());
    expect(a.describe()).toContain('assigned to replica b');
    b.start((l) => seen.push(`b:${l}`));
    await until(() => b.isLeader());
    expect(a.isLeader()).toBe(false);
    // Moved to a: a cannot take it while b holds it; b hands over, then a leads.
    owner = 'a';
    a.poke();
    await until(() => /led by another obsync/.test(a.describe()));
    expect(a.isLeader()).toBe(false);
    const bLease = b.lease();
    await b.handOver();
    expect(bLease?.lost.aborted).toBe(true);
    expect(b.isLeader()).toBe(false);
    a.poke();
    await until(() => a.isLeader());
    expect(b.describe()).toContain('assigned to replica a');
    expect(seen).toEqual(['b:true', 'b:false', 'a:true']);
    await a.stop();
    await b.stop();
  });
});
