/**
 * One `obsync run` process for every target (DESIGN §6): a Daemon per target — its own queue,
 * jittered schedule, pacer, back-off, readiness and leader election — under one health and
 * metrics server and one set of file watches. A file change triggers every target that reads
 * it (a base tree shared by two targets triggers both). Targets never wait for each other: a
 * slow or failing one only delays itself. SIGTERM stops them all at once, each within its
 * shutdown deadline.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Secret } from '../core/secret.js';
import type { EventBus } from '../events/bus.js';
import type { StatusDocument } from '../events/status-model.js';
import { isWithin } from '../manifests/files.js';
import type { Logger } from '../log/logger.js';
import type { TargetDetail } from '../render/status-page.js';
import type { Daemon } from './daemon.js';
import { startHealthServer, type HealthServer, type Readiness, type ReplicaReadiness } from './health.js';
import type { ConnectionCounts, HttpLimits } from './connections.js';
import type { Sharding } from './shards.js';
import type { DaemonMetrics } from './metrics.js';
import { EventStream } from './sse.js';
import { statusRoutes } from './status-routes.js';
import { startWatcher, type ManifestWatcher } from './watch.js';

export interface HostOptions {
  listen: { host: string; port: number };
  watch: boolean;
  debounceMs: number;
  logger: Logger;
  metrics: DaemonMetrics;
  /** Where every target's events go; the status API serves its rings. */
  events: EventBus;
  version: string;
  /** Bearer token of the status page and /api/* (none: open). */
  statusToken?: Secret | undefined;
  /** Clients of /api/events/stream at once (default 100). */
  maxStreamClients?: number;
  /** Connection limits and deadlines of the HTTP server (tests); the defaults otherwise. */
  http?: { limits?: Partial<HttpLimits> };
  /** Apply mode: replicas elect leaders (`sharding` on the PostgreSQL state, where they share the targets). */
  elect?: boolean;
  sharding?: Sharding | undefined;
}

/** Events of a target shown with its status. */
const RECENT_EVENTS = 20;
/** Events on a target's page. */
const PAGE_EVENTS = 200;

export class DaemonHost {
  #health: HealthServer | null = null;
  #watcher: ManifestWatcher | null = null;
  #stream: EventStream | null = null;
  #stopping = false;
  #started = false;
  readonly #replica: string;

  constructor(
    readonly daemons: readonly Daemon[],
    private readonly opts: HostOptions,
  ) {
    this.#replica = opts.sharding?.id ?? `${hostname()}/${process.pid}`;
  }

  get url(): string | undefined {
    return this.#health?.url;
  }

  /** The HTTP server's connections now. */
  get connections(): ConnectionCounts | undefined {
    return this.#health?.guard.counts();
  }

  async start(): Promise<void> {
    const { logger, metrics, listen, events } = this.opts;
    const maxClients = this.opts.maxStreamClients ?? 100;
    const stream = (this.#stream = new EventStream(events, {
      maxClients,
      onClients: (n) => metrics.statusClients.set(n),
      onRefused: () => metrics.statusRefused.inc(),
    }));
    const route = statusRoutes({ source: this, bus: events, stream, token: this.opts.statusToken });
    this.#health = await startHealthServer(listen.host, listen.port, () => this.readiness(), metrics, { route, ...this.opts.http });
    if (this.opts.watch)
      this.#watcher = await startWatcher(this.#roots(), this.opts.debounceMs, (changed) => this.#changed(changed), logger);
    logger.info({ targets: this.daemons.map((d) => d.target), watch: this.opts.watch, listen: this.#health.url }, 'daemon started');
    for (const d of this.daemons) d.start();
    this.#started = true;
  }

  /** Ready when every target is; the body says per target why (a down target is named, the others still reconcile). */
  readiness(): Readiness {
    const targets = Object.fromEntries(this.daemons.map((d) => [d.target, d.readiness()]));
    const replica = this.#replicaReadiness();
    const extra = replica ? { replica } : {};
    if (this.#stopping) return { ready: false, reason: 'shutting down', targets, ...extra };
    const waiting = Object.entries(targets)
      .filter(([, r]) => !r.ready)
      .map(([name]) => name);
    return waiting.length === 0
      ? { ready: true, targets, ...extra }
      : { ready: false, reason: `not ready: ${waiting.join(', ')}`, targets, ...extra };
  }

  #leads(): string[] {
    return this.daemons.filter((d) => d.leads).map((d) => d.target);
  }

  #replicaReadiness(): ReplicaReadiness | undefined {
    if (!this.opts.elect) return undefined;
    const leads = this.#leads();
    const view = this.opts.sharding?.view();
    if (!view) return { id: this.#replica, leads, holds: leads.length, sharing: 'off' };
    return {
      id: this.#replica,
      leads,
      holds: leads.length,
      sharing: 'postgres',
      assigned: view.assigned,
      replicas: view.replicas.length,
      disagreements: view.disagreements,
    };
  }

  /** Every target as /api/status and the page show it (memory only). */
  status(): StatusDocument {
    return {
      version: this.opts.version,
      generatedAt: new Date().toISOString(),
      ready: this.readiness().ready,
      replica: this.#replicaStatus(),
      targets: this.daemons.map((d) => d.status(this.opts.events.recent(d.target, RECENT_EVENTS))),
    };
  }

  #replicaStatus(): StatusDocument['replica'] {
    if (!this.opts.elect) return { id: this.#replica };
    const view = this.opts.sharding?.view();
    if (!view) return { id: this.#replica, leads: this.#leads() };
    const { replicas, assigned, disagreements, heartbeatAt } = view;
    return { id: this.#replica, leads: this.#leads(), sharing: { replicas, assigned, disagreements, heartbeatAt } };
  }

  /** One target's page: its status, last plan, drift history and events. */
  target(name: string): TargetDetail | undefined {
    const daemon = this.daemons.find((d) => d.target === name);
    if (!daemon) return undefined;
    const { events } = this.opts;
    return {
      status: daemon.status(events.recent(name, RECENT_EVENTS)),
      plan: daemon.lastPlan(),
      history: events.history(name),
      events: events.recent(name, PAGE_EVENTS),
    };
  }

  /** An SVG of a target's last plan (the status page's previews). */
  preview(name: string, file: string): string | undefined {
    return this.daemons.find((d) => d.target === name)?.picture(file);
  }

  /** Not ready at once, no new triggers, every target stopped in parallel, then the server closed. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    await this.#watcher?.close();
    await Promise.all(this.daemons.map((d) => d.stop()));
    this.#stream?.close();
    await this.#health?.close();
    this.opts.logger.info({ targets: this.daemons.map((d) => d.target) }, 'daemon stopped');
  }

  /**
   * SIGHUP, as daemons take it: reconcile every target now. Each run reads its manifests afresh
   * (as every run does); obsync.yaml is read at start-up only, so changing it needs a restart.
   */
  reconcileNow(signal: string): void {
    if (this.#stopping || !this.#started) return;
    this.opts.logger.info({ signal, targets: this.daemons.map((d) => d.target) }, 'reconcile requested');
    for (const d of this.daemons) d.trigger('manual');
  }

  /** Every path any target reads, once. */
  #roots(): string[] {
    return [...new Set(this.daemons.flatMap((d) => d.watchPaths.map((p) => resolve(p))))];
  }

  /** Runs the targets that read a changed file (or whose root was replaced). */
  #changed(paths: readonly string[]): void {
    const readers = this.daemons.filter((d) => paths.some((p) => d.watchPaths.some((root) => isWithin(resolve(root), resolve(p)))));
    this.opts.logger.info({ targets: readers.map((d) => d.target), files: paths.length }, 'manifests changed');
    for (const d of readers) d.trigger('watch');
  }
}
