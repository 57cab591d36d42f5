import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { EventBus } from '../events/bus.js';
import type { EventBody } from '../events/vocabulary.js';
import type { LeasesRead, RegistryRead, ReplicaHeartbeat, ReplicaRegistry } from '../inventory/backend.js';
import { createLogger } from '../log/logger.js';
import type { Daemon } from './daemon.js';
import { DaemonMetrics } from './metrics.js';
import { Sharding } from './shards.js';

/** The registry as the database keeps it: every replica that beat is live until `kill`ed. */
class MemoryRegistry implements ReplicaRegistry {
  readonly rows = new Map<string, ReplicaHeartbeat>();
  /** How old each replica's last heartbeat is when listed (default 0: it just beat). */
  readonly ages = new Map<string, number>();
  heartbeat(me: ReplicaHeartbeat): Promise<RegistryRead> {
    this.rows.set(me.id, { ...me });
    return this.list();
  }
  leave(id: string): Promise<void> {
    this.rows.delete(id);
    return Promise.resolve();
  }
  list(): Promise<RegistryRead> {
    const at = new Date().toISOString();
    const replicas = [...this.rows.values()]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((r) => ({ ...r, startedAt: at, heartbeatAt: at, expiresAt: at, heartbeatAgeMs: this.ages.get(r.id) ?? 0, live: true }));
    return Promise.resolve({ replicas, skipped: [] });
  }
  leases(): Promise<LeasesRead> {
    return Promise.resolve({ leases: [], skipped: [] });
  }
}

/** A daemon as the coordinator drives it: leads when it claimed, hands over when told. */
function fakeDaemon(target: string) {
  const d = {
    target,
    leads: false,
    handOvers: 0,
    claim() {
      d.leads = true;
    },
    handOver() {
      d.handOvers += 1;
      d.leads = false;
      return Promise.resolve();
    },
  };
  return d;
}

function replica(
  id: string,
  registry: MemoryRegistry,
  targets: string[],
  extra: { version?: string; leaseMs?: number; now?: () => Date } = {},
) {
  const events: { target: string; body: EventBody }[] = [];
  const log = new PassThrough();
  let logged = '';
  log.on('data', (c: Buffer) => (logged += c.toString()));
  const sharding = new Sharding({
    registry,
    me: { id, host: 'h', pid: 1, version: extra.version ?? '1.0.0', leaseMs: extra.leaseMs ?? 30_000 },
    targets,
    intervalMs: 60_000,
    logger: createLogger({ stream: log }),
    metrics: new DaemonMetrics('1.0.0'),
    events: { emit: (target: string, body: EventBody) => events.push({ target, body }) } as unknown as EventBus,
    ...(extra.now ? { now: extra.now } : {}),
  });
  const daemons = targets.map(fakeDaemon);
  return {
    sharding,
    daemons,
    events,
    logged: () => logged,
    start: () => sharding.start(daemons as unknown as Daemon[]),
    beat: async () => {
      if (!started.has(sharding)) {
        started.add(sharding);
        return sharding.start(daemons as unknown as Daemon[]);
      }
      return sharding.heartbeat();
    },
  };
}

const started = new WeakSet<Sharding>();
const TARGETS = ['a', 'b', 'c', 'd', 'e', 'f'];

describe('Sharding', () => {
  it('assigns nothing before the first heartbeat, then claims only its own targets', async () => {
    const registry = new MemoryRegistry();
    const one = replica('r1', registry, TARGETS);
    expect(one.sharding.assignment('a')).toEqual({ mine: false, owner: 'not assigned yet: waiting for the replica registry' });
    await one.start();
    expect(one.daemons.every((d) => d.leads)).toBe(true);
    expect(one.sharding.view()).toMatchObject({ replica: 'r1', assigned: TARGETS, leads: TARGETS, disagreements: [] });
    await one.sharding.leave();
  });

  it('hands over the targets a newcomer is assigned, and only those; leaving gives them back', async () => {
    const registry = new MemoryRegistry();
    const one = replica('r1', registry, TARGETS);
    await one.beat();
    const two = replica('r2', registry, TARGETS);
    await two.beat();
    const mineOf = (r: typeof one) => TARGETS.filter((t) => r.sharding.assignment(t).mine);
    expect(mineOf(two)).toHaveLength(3);
    // r1 learns of r2 at its next heartbeat: it hands over exactly r2's targets.
    await one.beat();
    expect(mineOf(one)).toHaveLength(3);
    expect(one.daemons.filter((d) => d.handOvers > 0).map((d) => d.target)).toEqual(mineOf(two));
    expect(one.daemons.filter((d) => d.leads).map((d) => d.target)).toEqual(mineOf(one));
    expect(one.sharding.assignment(mineOf(two)[0] ?? '')).toEqual({ mine: false, owner: 'assigned to replica r2' });
    await two.sharding.leave();
    await one.beat();
    expect(one.daemons.every((d) => d.leads)).toBe(true);
    await one.sharding.leave();
    expect(registry.rows.size).toBe(0);
  });

  it('reports replicas that disagree, once per change: a log line, an event on each of its targets, the view', async () => {
    const registry = new MemoryRegistry();
    const one = replica('r1', registry, ['a', 'b']);
    const two = replica('r2', registry, ['a', 'c'], { version: '1.1.0', leaseMs: 10_000 });
    await one.beat();
    await two.beat();
    await one.beat();
    const details = [
      'replica r2 does not run target(s) b that replica r1 runs',
      'replica r2 has state.leaseSeconds 10, replica r1 has 30',
      'replica r2 runs obsync 1.1.0, replica r1 runs 1.0.0',
      'replica r2 runs target(s) c that replica r1 does not',
    ];
    expect(one.sharding.view().disagreements).toEqual(details);
    expect(one.events).toEqual(['a', 'b'].map((target) => ({ target, body: { event: 'replicas-disagree', replicas: ['r2'], details } })));
    expect(one.logged()).toContain('"msg":"replicas disagree"');
    // Recorded in the registry for `obsync state replicas`, and not told again while unchanged.
    await one.beat();
    expect(registry.rows.get('r1')?.disagreements).toEqual(details);
    expect(one.events).toHaveLength(2);
    // A target only one replica knows is led by it.
    expect(one.sharding.assignment('b')).toEqual({ mine: true });
    expect(two.sharding.assignment('c')).toEqual({ mine: true });
    await two.sharding.leave();
    await one.beat();
    expect(one.events.at(-1)?.body).toEqual({ event: 'replicas-disagree', replicas: [], details: [] });
    await one.sharding.leave();
  });

  it(
    'marks late a replica whose heartbeat is older than two intervals, itself included when its own beats ' + 'stop reaching the registry',
    async () => {
      const registry = new MemoryRegistry();
      let clock = Date.parse('2026-11-26T12:00:00Z');
      const one = replica('r1', registry, ['a'], { now: () => new Date(clock) });
      const two = replica('r2', registry, ['a']);
      await two.beat();
      registry.ages.set('r2', 125_000);
      await one.beat();
      const late = () => Object.fromEntries(one.sharding.view().replicas.map((r) => [r.id, [r.heartbeatAgeMs, r.late]]));
      expect(late()).toEqual({ r1: [0, false], r2: [125_000, true] });
      registry.ages.set('r2', 120_000);
      await one.beat();
      expect(late()).toEqual({ r1: [0, false], r2: [120_000, false] });
      // No beat of its own for two intervals and a second: the ages grow as of now, and r1 is late too.
      clock += 121_000;
      expect(late()).toEqual({ r1: [121_000, true], r2: [241_000, true] });
      await two.sharding.leave();
      await one.sharding.leave();
    },
  );
});
