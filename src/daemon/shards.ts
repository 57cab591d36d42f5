/**
 * Targets shared by replicas (issue 28): every `obsync run` on the PostgreSQL state registers in
 * the replica registry with a heartbeat lease, and at every heartbeat divides the targets among
 * the live replicas (rendezvous hashing, ../inventory/assignment.ts). A replica competes only for
 * the targets assigned to it; one that leads a target now assigned elsewhere lets its run end and
 * then hands the lease over. The per-target writer lease still fences every write, so replicas
 * that momentarily see different live sets never write the same target at once.
 */
import { errorMessage } from '../core/errors.js';
import type { SkippedRow } from '../core/inventory.js';
import type { EventBus } from '../events/bus.js';
import { assignTargets, disagreements, type Assignment } from '../inventory/assignment.js';
import type { ReplicaHeartbeat, ReplicaRecord, ReplicaRegistry } from '../inventory/backend.js';
import type { TargetAssignment } from '../inventory/elector.js';
import type { Logger } from '../log/logger.js';
import type { Daemon } from './daemon.js';
import type { DaemonMetrics } from './metrics.js';

export interface ShardingOptions {
  registry: ReplicaRegistry;
  /** This replica as it registers (its targets, leads and disagreements are added at each heartbeat). */
  me: Omit<ReplicaHeartbeat, 'targets' | 'leads' | 'disagreements'>;
  targets: readonly string[];
  /** Heartbeat interval: the lease's renewal interval (a third of the lease). */
  intervalMs: number;
  logger: Logger;
  metrics: DaemonMetrics;
  events: EventBus;
  now?: () => Date;
}

/** A replica whose last heartbeat is older than this many intervals is shown late. */
const LATE_AFTER_BEATS = 2;

/** What /readyz, /api/status and the page say about the sharing. */
export interface ShardingView {
  replica: string;
  /** Live replicas at the last heartbeat, with what each leads (as it last told). */
  replicas: { id: string; leads: string[]; targets: number; heartbeatAgeMs: number; late: boolean; version: string }[];
  /** The targets assigned to this replica. */
  assigned: string[];
  /** The targets this replica leads now. */
  leads: string[];
  disagreements: string[];
  /** When the last heartbeat succeeded (null: none yet). */
  heartbeatAt: string | null;
}

export class Sharding {
  #daemons: readonly Daemon[] = [];
  #live: ReplicaRecord[] = [];
  #assignment: Assignment | null = null;
  #disagreements: string[] = [];
  /** The registry rows left out at the last heartbeat, as told in the log (`table\0key`). */
  #skipped = new Set<string>();
  #heartbeatAt: Date | null = null;
  #timer: NodeJS.Timeout | null = null;
  #tick: Promise<void> | null = null;
  #stopped = false;
  readonly #targets: string[];

  constructor(private readonly opts: ShardingOptions) {
    this.#targets = [...new Set(opts.targets)].sort();
  }

  get id(): string {
    return this.opts.me.id;
  }

  /** Where the status server listens, told to the others from the next heartbeat on. */
  set listen(url: string | undefined) {
    this.opts.me.listen = url;
  }

  /** Whom the target is assigned to; nobody's (not even this replica's) before the first heartbeat. */
  assignment(target: string): TargetAssignment {
    const a = this.#assignment;
    if (!a) return { mine: false, owner: 'not assigned yet: waiting for the replica registry' };
    const owner = a.owner.get(target);
    if (owner === undefined || owner === this.id) return { mine: true };
    return { mine: false, owner: `assigned to replica ${owner}` };
  }

  /** The first heartbeat (awaited, so the targets are assigned before the daemons compete), then one per interval. */
  async start(daemons: readonly Daemon[]): Promise<void> {
    this.#daemons = daemons;
    await this.heartbeat();
    this.#schedule();
  }

  /** One heartbeat now: registers, re-divides, claims and hands over (also what the timer runs). */
  async heartbeat(): Promise<void> {
    if (!this.#stopped) await this.#beat();
  }

  /** SIGTERM: no more heartbeats, and out of the registry at once (the others re-divide at their next heartbeat). */
  async leave(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#tick;
    await this.opts.registry
      .leave(this.id)
      .catch((err: unknown) => this.opts.logger.warn({ err: errorMessage(err) }, 'leaving the replica registry failed'));
    this.opts.logger.info({ replica: this.id }, 'replica left the registry');
  }

  /** Heartbeat ages are as of now (the registry's ages plus the time since this replica read them: its own beats may fail too). */
  view(): ShardingView {
    const assigned = this.#targets.filter((t) => this.assignment(t).mine && this.#assignment !== null);
    const sinceRead = this.#heartbeatAt ? Math.max(0, this.#now().getTime() - this.#heartbeatAt.getTime()) : 0;
    return {
      replica: this.id,
      replicas: this.#live.map((r) => {
        const heartbeatAgeMs = Math.round(r.heartbeatAgeMs + sinceRead);
        return {
          id: r.id,
          leads: r.id === this.id ? this.#leads() : [...r.leads],
          targets: r.targets.length,
          heartbeatAgeMs,
          // A beat missed (with room for a slow one): it may be stuck or gone before its lease says so.
          late: heartbeatAgeMs > LATE_AFTER_BEATS * this.opts.intervalMs,
          version: r.version,
        };
      }),
      assigned,
      leads: this.#leads(),
      disagreements: [...this.#disagreements],
      heartbeatAt: this.#heartbeatAt?.toISOString() ?? null,
    };
  }

  #now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  #leads(): string[] {
    return this.#daemons
      .filter((d) => d.leads)
      .map((d) => d.target)
      .sort();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#tick = this.heartbeat().finally(() => {
        this.#tick = null;
        this.#schedule();
      });
    }, this.opts.intervalMs);
    this.#timer.unref();
  }

  async #beat(): Promise<void> {
    const { registry, logger, metrics, me } = this.opts;
    let skipped: SkippedRow[];
    let live: ReplicaRecord[];
    try {
      ({ replicas: live, skipped } = await registry.heartbeat({
        ...me,
        targets: this.#targets,
        leads: this.#leads(),
        disagreements: this.#disagreements,
      }));
    } catch (err) {
      // The last assignment stands; the target leases (renewed on the same database) decide who writes.
      logger.warn({ replica: this.id, err: errorMessage(err) }, 'replica heartbeat failed');
      return;
    }
    if (this.#stopped) return;
    this.#heartbeatAt = this.#now();
    this.#told(skipped);
    this.#live = live;
    this.#assignment = assignTargets(live.map((r) => ({ id: r.id, targets: r.targets })));
    this.#found(disagreements({ id: this.id, targets: this.#targets, version: me.version, leaseMs: me.leaseMs }, live));
    metrics.replicasLive.set(live.length);
    metrics.targetsAssigned.set(this.#targets.filter((t) => this.assignment(t).mine).length);
    for (const d of this.#daemons) {
      if (this.assignment(d.target).mine) d.claim();
      else if (d.leads) void d.handOver();
    }
  }

  /** Rows the registry left out (a hand-written or damaged row never stops a replica): a warning each, when first seen. */
  #told(skipped: readonly SkippedRow[]): void {
    const now = new Set<string>();
    for (const row of skipped) {
      const id = `${row.table}\u0000${row.key}`;
      now.add(id);
      if (!this.#skipped.has(id))
        this.opts.logger.warn(
          { replica: this.id, table: row.table, key: row.key, reason: row.reason, hint: row.hint },
          'state row skipped',
        );
    }
    this.#skipped = now;
  }

  /** Disagreements are told when they change: a log line, and an event on each target of this replica. */
  #found(found: string[]): void {
    const before = this.#disagreements;
    this.opts.metrics.replicaDisagreements.set(found.length);
    if (found.length === before.length && found.every((d, i) => d === before[i])) return;
    this.#disagreements = found;
    const replicas = [...new Set(this.#live.filter((r) => r.id !== this.id && found.some((d) => d.includes(r.id))).map((r) => r.id))];
    if (found.length > 0) this.opts.logger.warn({ replica: this.id, details: found }, 'replicas disagree');
    else this.opts.logger.info({ replica: this.id }, 'replicas agree');
    for (const target of this.#targets) this.opts.events.emit(target, { event: 'replicas-disagree', replicas, details: found });
  }
}
