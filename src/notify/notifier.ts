/**
 * Delivers notifications to the sinks of `notifications:` (issue 25) without ever delaying a
 * run: `observe()` only decides (./policy.ts) and queues; each sink delivers from its own
 * bounded queue in the background, one at a time, rate-limited (at most `maxPerMinute`; the rest
 * are dropped, counted, and announced by the next one delivered), retried with full-jitter
 * back-off after a 429, a 5xx or no response. A sink that fails is logged and counted, never fatal.
 * Sinks are named by their position (`notifications[0]`): their URL is a secret.
 */
import type { Logger } from '../log/logger.js';
import type { NotificationClass, ObsyncEvent } from '../events/vocabulary.js';
import { genericPayload, slackPayload, type PayloadContext } from './payload.js';
import { NotificationPolicy, type Notification } from './policy.js';

/** How a sink is reached (src/remote implements it over HTTP). */
export interface SinkPoster {
  post(body: unknown): Promise<{ status: number; retryAfterMs?: number }>;
  close(): Promise<void>;
}

export interface SinkSpec {
  /** Its position in `notifications:`. */
  index: number;
  type: 'slack' | 'generic';
  /** The classes it wants (all when absent). */
  events?: readonly NotificationClass[] | undefined;
  /** The targets it wants (all when absent). */
  targets?: readonly string[] | undefined;
  maxPerMinute?: number | undefined;
  poster: SinkPoster;
}

export type DeliveryResult = 'sent' | 'failed' | 'dropped';

export interface NotifierOptions {
  logger: Logger;
  version: string;
  replica: string;
  /** Counts each notification's fate (obsync_notifications_total). */
  count?: (sink: string, type: string, result: DeliveryResult) => void;
  /** Attempts per notification (default 4) and the first back-off (default 1 s). */
  attempts?: number;
  backoffMs?: number;
  /** The longest wait a sink may ask for (default 60 s); a longer one fails the notification. */
  maxWaitMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_MAX_PER_MINUTE = 20;
const QUEUE_LIMIT = 100;
const WINDOW_MS = 60_000;

export class Notifier {
  readonly #policy = new NotificationPolicy();
  readonly #sinks: Sink[];
  #closed = false;

  constructor(sinks: readonly SinkSpec[], opts: NotifierOptions) {
    this.#sinks = sinks.map((spec) => new Sink(spec, opts));
  }

  /** Called for every event (synchronously, by the bus): decides and queues, never waits. */
  observe(event: ObsyncEvent): void {
    if (this.#closed) return;
    for (const n of this.#policy.observe(event)) for (const sink of this.#sinks) if (sink.wants(n)) sink.enqueue(n);
  }

  /** Resolves when every queue is empty (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all(this.#sinks.map((s) => s.idle()));
  }

  /** Shutdown: waits for the queues up to `graceMs`, then gives up what is left. */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.idle(), grace]);
    clearTimeout(timer);
    await Promise.all(this.#sinks.map((s) => s.close()));
  }
}

class Sink {
  readonly name: string;
  readonly #queue: Notification[] = [];
  readonly #sent: number[] = [];
  #dropped = 0;
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly spec: SinkSpec,
    private readonly opts: NotifierOptions,
  ) {
    this.name = `notifications[${spec.index}]`;
  }

  wants(n: Notification): boolean {
    return (!this.spec.events || this.spec.events.includes(n.kind)) && (!this.spec.targets || this.spec.targets.includes(n.target));
  }

  enqueue(n: Notification): void {
    if (this.#closed) return;
    if (this.#queue.length >= QUEUE_LIMIT || !this.#withinRate()) return this.#drop(n, 'rate limit');
    this.#queue.push(n);
    this.#running ??= this.#drain().finally(() => (this.#running = null));
  }

  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    await this.spec.poster.close();
  }

  /** Sliding window: counts a notification queued now against the last minute's. */
  #withinRate(): boolean {
    const now = this.#now();
    while (this.#sent.length > 0 && (this.#sent[0] ?? 0) <= now - WINDOW_MS) this.#sent.shift();
    if (this.#sent.length >= (this.spec.maxPerMinute ?? DEFAULT_MAX_PER_MINUTE)) return false;
    this.#sent.push(now);
    return true;
  }

  #drop(n: Notification, why: string): void {
    this.#dropped += 1;
    this.opts.count?.(this.name, this.spec.type, 'dropped');
    this.opts.logger.warn({ sink: this.name, type: this.spec.type, kind: n.kind, target: n.target, why }, 'notification dropped');
  }

  async #drain(): Promise<void> {
    for (let n = this.#queue.shift(); n !== undefined && !this.#closed; n = this.#queue.shift()) await this.#deliver(n);
  }

  async #deliver(n: Notification): Promise<void> {
    const ctx: PayloadContext = { version: this.opts.version, replica: this.opts.replica, dropped: this.#dropped };
    const body = this.spec.type === 'slack' ? slackPayload(n, ctx) : genericPayload(n, ctx);
    const attempts = this.opts.attempts ?? 4;
    const fields = { sink: this.name, type: this.spec.type, kind: n.kind, target: n.target };
    let outcome = 'not sent';
    for (let attempt = 1; attempt <= attempts && !this.#closed; attempt++) {
      let waitMs: number | undefined;
      try {
        const res = await this.spec.poster.post(body);
        if (res.status >= 200 && res.status < 300) {
          // Those it announced are told; drops since it was built wait for the next one.
          this.#dropped -= ctx.dropped;
          this.opts.count?.(this.name, this.spec.type, 'sent');
          this.opts.logger.info({ ...fields, status: res.status, attempt }, 'notification sent');
          return;
        }
        outcome = `HTTP ${res.status}`;
        // A 4xx other than 429 will not change by itself (a revoked webhook, a bad payload).
        if (res.status !== 429 && res.status < 500) break;
        waitMs = res.retryAfterMs;
      } catch (err) {
        outcome = (err as { code?: unknown }).code ? `no response (${String((err as { code?: unknown }).code)})` : 'no response';
      }
      if (attempt === attempts) break;
      if (waitMs !== undefined && waitMs > (this.opts.maxWaitMs ?? 60_000)) {
        outcome += `, and it asked to wait ${Math.ceil(waitMs / 1000)} s`;
        break;
      }
      const cap = Math.min(30_000, (this.opts.backoffMs ?? 1_000) * 2 ** (attempt - 1));
      await this.#sleep(waitMs ?? Math.floor(Math.random() * cap));
    }
    this.opts.count?.(this.name, this.spec.type, 'failed');
    this.opts.logger.warn({ ...fields, outcome }, 'notification failed');
  }

  #now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  #sleep(ms: number): Promise<void> {
    if (this.opts.sleep) return this.opts.sleep(ms);
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
  }
}
