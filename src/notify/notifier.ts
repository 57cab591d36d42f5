/**
 * Delivers notifications to the sinks of `notifications:` (issue 25) without ever delaying a
 * run: `observe()` only decides (./policy.ts), prepares (an id, each object's field changes from
 * the run's plan, scrubbed) and queues; each sink delivers from its own bounded queue in the
 * background, one at a time, rate-limited (at most `maxPerMinute`; the rest are dropped, counted,
 * and announced by the next one delivered), retried with full-jitter back-off after a 429, a 5xx
 * or no response. A sink that fails is logged and counted, never fatal. Sinks are named by their
 * position (`notifications[0]`): their URL is a secret. An Alertmanager sink also re-sends what
 * still fires every RESEND_MS (not counted as notifications, not rate-limited).
 */
import { randomUUID } from 'node:crypto';
import { scrub } from '../core/scrub.js';
import { eventObject } from '../events/describe.js';
import type { Logger } from '../log/logger.js';
import type { NotificationClass, ObsyncEvent } from '../events/vocabulary.js';
import { AlertmanagerAlerts, RESEND_MS } from './alertmanager.js';
import type { ChangesLookup } from './changes.js';
import { CLOUDEVENTS_CONTENT_TYPE, cloudEvent } from './cloudevents.js';
import { genericPayload, MAX_OBJECTS, type PayloadContext, type PreparedNotification } from './payload.js';
import { NotificationPolicy, type Notification } from './policy.js';
import { slackPayload } from './slack.js';

/** One POST: the body, its content type, and the message id (the same for every attempt). */
export interface SinkMessage {
  body: unknown;
  contentType: string;
  id: string;
}

/** How a sink is reached (src/remote implements it over HTTP: headers, signature). */
export interface SinkPoster {
  post(message: SinkMessage): Promise<{ status: number; retryAfterMs?: number }>;
  close(): Promise<void>;
}

export type SinkType = 'slack' | 'generic' | 'alertmanager';

export interface SinkSpec {
  /** Its position in `notifications:`. */
  index: number;
  type: SinkType;
  /** generic: obsync's document as it is (default) or as a CloudEvent. */
  format?: 'obsync' | 'cloudevents' | undefined;
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
  /** The field changes of a run's objects (the daemon reads its last plan); without it, none are shown. */
  changes?: ChangesLookup;
  /** Re-sends what still fires on Alertmanager sinks on a timer (default true; tests call resend()). */
  resendTimer?: boolean;
}

export const DEFAULT_MAX_PER_MINUTE = 20;
const QUEUE_LIMIT = 100;
const WINDOW_MS = 60_000;

export class Notifier {
  readonly #policy = new NotificationPolicy();
  readonly #sinks: Sink[];
  readonly #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    sinks: readonly SinkSpec[],
    private readonly opts: NotifierOptions,
  ) {
    this.#sinks = sinks.map((spec) => new Sink(spec, opts));
    if (opts.resendTimer !== false && sinks.some((s) => s.type === 'alertmanager'))
      this.#timer = setInterval(() => this.resend(), RESEND_MS).unref();
  }

  /** Called for every event (synchronously, by the bus): decides, prepares and queues, never waits. */
  observe(event: ObsyncEvent): void {
    if (this.#closed) return;
    for (const n of this.#policy.observe(event)) {
      const sinks = this.#sinks.filter((s) => s.wants(n));
      if (sinks.length === 0) continue;
      const prepared = this.#prepare(n);
      for (const sink of sinks) sink.enqueue(prepared);
    }
  }

  /** Alertmanager sinks send again what still fires. */
  resend(): void {
    if (!this.#closed) for (const sink of this.#sinks) sink.resend();
  }

  /**
   * An id, and the first MAX_OBJECTS objects with their field changes — read now, while the
   * daemon's last plan is the run's. Events were scrubbed on the bus; the changes carry values
   * from the plan (sensitive ones already masked), so they pass the one scrubber too.
   */
  #prepare(n: Notification): PreparedNotification {
    const { objects = [], ...rest } = n;
    const shown = objects.slice(0, MAX_OBJECTS);
    const addresses = shown.map((e) => eventObject(e)).filter((a) => a !== undefined);
    const changes = addresses.length > 0 ? this.opts.changes?.(n.target, addresses) : undefined;
    return {
      ...rest,
      summary: scrub(n.summary),
      id: randomUUID(),
      count: objects.length,
      items: shown.map((event) => ({ event, changes: (changes?.get(eventObject(event) ?? '') ?? []).map(scrub) })),
    };
  }

  /** Resolves when every queue is empty (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all(this.#sinks.map((s) => s.idle()));
  }

  /** Shutdown: waits for the queues up to `graceMs`, then gives up what is left. */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.idle(), grace]);
    clearTimeout(timer);
    await Promise.all(this.#sinks.map((s) => s.close()));
  }
}

/** What a sink's queue holds: a notification, or a re-send of what still fires (Alertmanager). */
type Queued = { n: PreparedNotification } | { resend: true };

class Sink {
  readonly name: string;
  readonly #queue: Queued[] = [];
  readonly #sent: number[] = [];
  readonly #alerts: AlertmanagerAlerts | undefined;
  #dropped = 0;
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly spec: SinkSpec,
    private readonly opts: NotifierOptions,
  ) {
    this.name = `notifications[${spec.index}]`;
    if (spec.type === 'alertmanager') this.#alerts = new AlertmanagerAlerts(() => this.#now());
  }

  wants(n: Notification): boolean {
    return (!this.spec.events || this.spec.events.includes(n.kind)) && (!this.spec.targets || this.spec.targets.includes(n.target));
  }

  enqueue(n: PreparedNotification): void {
    if (this.#closed) return;
    if (this.#queue.length >= QUEUE_LIMIT || !this.#withinRate()) return this.#drop(n, 'rate limit');
    this.#push({ n });
  }

  /** Alertmanager: what still fires is sent again (once in the queue at a time). */
  resend(): void {
    if (this.#closed || !this.#alerts?.firing || this.#queue.some((q) => 'resend' in q)) return;
    this.#push({ resend: true });
  }

  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    await this.spec.poster.close();
  }

  #push(item: Queued): void {
    this.#queue.push(item);
    this.#running ??= this.#drain().finally(() => (this.#running = null));
  }

  /** Sliding window: counts a notification queued now against the last minute's. */
  #withinRate(): boolean {
    const now = this.#now();
    while (this.#sent.length > 0 && (this.#sent[0] ?? 0) <= now - WINDOW_MS) this.#sent.shift();
    if (this.#sent.length >= (this.spec.maxPerMinute ?? DEFAULT_MAX_PER_MINUTE)) return false;
    this.#sent.push(now);
    return true;
  }

  #drop(n: PreparedNotification, why: string): void {
    this.#dropped += 1;
    this.opts.count?.(this.name, this.spec.type, 'dropped');
    this.opts.logger.warn({ sink: this.name, type: this.spec.type, kind: n.kind, target: n.target, why }, 'notification dropped');
  }

  async #drain(): Promise<void> {
    for (let q = this.#queue.shift(); q !== undefined && !this.#closed; q = this.#queue.shift()) {
      if ('n' in q) await this.#deliver(q.n);
      else await this.#resendNow();
    }
  }

  /** The message of a notification in this sink's form (built when it is sent: it announces the drops so far). */
  #message(n: PreparedNotification, ctx: PayloadContext): SinkMessage {
    if (this.#alerts) return { body: this.#alerts.alerts(n, ctx), contentType: JSON_TYPE, id: n.id };
    if (this.spec.type === 'slack') return { body: slackPayload(n, ctx), contentType: JSON_TYPE, id: n.id };
    const doc = genericPayload(n, ctx);
    if (this.spec.format === 'cloudevents') return { body: cloudEvent(doc), contentType: CLOUDEVENTS_CONTENT_TYPE, id: n.id };
    return { body: doc, contentType: JSON_TYPE, id: n.id };
  }

  async #resendNow(): Promise<void> {
    const body = this.#alerts?.refresh();
    if (!body) return;
    const fields = { sink: this.name, type: this.spec.type, alerts: body.length };
    const outcome = await this.#post({ body, contentType: JSON_TYPE, id: randomUUID() }, fields);
    if (outcome.sent) this.opts.logger.debug({ ...fields, status: outcome.status }, 'firing alerts sent again');
    else this.opts.logger.warn({ ...fields, outcome: outcome.why }, 'firing alerts not sent again');
  }

  async #deliver(n: PreparedNotification): Promise<void> {
    const ctx: PayloadContext = { version: this.opts.version, replica: this.opts.replica, dropped: this.#dropped };
    const fields = { sink: this.name, type: this.spec.type, kind: n.kind, target: n.target };
    const outcome = await this.#post(this.#message(n, ctx), fields);
    if (outcome.sent) {
      // Those it announced are told; drops since it was built wait for the next one.
      this.#dropped -= ctx.dropped;
      this.opts.count?.(this.name, this.spec.type, 'sent');
      this.opts.logger.info({ ...fields, status: outcome.status, attempt: outcome.attempt }, 'notification sent');
      return;
    }
    this.opts.count?.(this.name, this.spec.type, 'failed');
    this.opts.logger.warn({ ...fields, outcome: outcome.why }, 'notification failed');
  }

  /** Posts with retries: a 429, a 5xx or no response is tried again after a full-jitter back-off (or the wait asked for). */
  async #post(
    message: SinkMessage,
    fields: Record<string, unknown>,
  ): Promise<{ sent: true; status: number; attempt: number } | { sent: false; why: string }> {
    const attempts = this.opts.attempts ?? 4;
    let outcome = 'not sent';
    for (let attempt = 1; attempt <= attempts && !this.#closed; attempt++) {
      let waitMs: number | undefined;
      try {
        const res = await this.spec.poster.post(message);
        if (res.status >= 200 && res.status < 300) return { sent: true, status: res.status, attempt };
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
      this.opts.logger.debug({ ...fields, outcome, attempt }, 'notification retried');
      await this.#sleep(waitMs ?? Math.floor(Math.random() * cap));
    }
    return { sent: false, why: outcome };
  }

  #now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  #sleep(ms: number): Promise<void> {
    if (this.opts.sleep) return this.opts.sleep(ms);
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';
