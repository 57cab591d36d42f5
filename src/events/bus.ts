/**
 * Where every event goes out, one place for all (issue 25): it is numbered and timed, scrubbed
 * (the one scrubber, on every string), logged as a pino line with an `event` field and a fixed
 * message, counted, kept in a bounded ring per target (and its drift in a smaller history), and
 * handed to the subscribers (SSE clients, the notifier). A subscriber that throws is logged and
 * kept away from the others; nothing here waits on I/O, so emitting never slows a run.
 */
import { errorMessage } from '../core/errors.js';
import { scrubDeep } from '../core/scrub.js';
import type { Logger } from '../log/logger.js';
import { Ring } from './ring.js';
import type { EventBody, EventName, ObsyncEvent } from './vocabulary.js';
import { EVENT_MESSAGES, eventLevel } from './event-messages.js';

export const DEFAULT_RING_SIZE = 500;
export const DEFAULT_HISTORY_SIZE = 100;
/** The events a target's drift history keeps. */
const HISTORY: ReadonlySet<EventName> = new Set(['drift', 'healed']);

export interface EventBusOptions {
  logger: Logger;
  /** by-event: each event at its own level (the daemon); info: all at info (the CLI, whose output already says it). */
  levels: 'by-event' | 'info';
  /** Called once per event (obsync_events_total). */
  count?: (target: string, event: EventName) => void;
  /** Events kept per target (default 500); 0 keeps none. */
  ringSize?: number;
  /** Drift and healed events kept per target for its history (default 100). */
  historySize?: number;
  now?: () => Date;
}

export interface EventQuery {
  target?: string | undefined;
  /** Only events after this sequence number, or at or after this time. */
  since?: number | Date | undefined;
}

export type Subscriber = (event: ObsyncEvent) => void;

export class EventBus {
  #seq = 0;
  readonly #rings = new Map<string, Ring<ObsyncEvent>>();
  readonly #history = new Map<string, Ring<ObsyncEvent>>();
  readonly #subscribers = new Set<Subscriber>();

  constructor(private readonly opts: EventBusOptions) {}

  emit(target: string, body: EventBody): ObsyncEvent {
    this.#seq += 1;
    const time = (this.opts.now?.() ?? new Date()).toISOString();
    const event: ObsyncEvent = scrubDeep({ seq: this.#seq, time, target, ...body });
    this.#log(event);
    this.opts.count?.(target, event.event);
    this.#keep(event);
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(event);
      } catch (err) {
        this.opts.logger.warn({ target, event: event.event, err: errorMessage(err) }, 'event subscriber failed');
      }
    }
    return event;
  }

  subscribe(subscriber: Subscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /** The sequence number of the newest event (0: none yet). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Kept events, oldest first: of one target or all, after a cursor. */
  list(query: EventQuery = {}): ObsyncEvent[] {
    const rings = query.target === undefined ? [...this.#rings.values()] : [this.#rings.get(query.target)].filter((r) => r !== undefined);
    const since = query.since;
    const after = (e: ObsyncEvent) =>
      since === undefined ? true : typeof since === 'number' ? e.seq > since : Date.parse(e.time) >= since.getTime();
    return rings
      .flatMap((r) => r.toArray())
      .filter(after)
      .sort((a, b) => a.seq - b.seq);
  }

  /** The newest events of a target, newest first. */
  recent(target: string, n: number): ObsyncEvent[] {
    return this.#rings.get(target)?.newest(n) ?? [];
  }

  /** A target's drift history (drift and healed), newest first. */
  history(target: string): ObsyncEvent[] {
    const ring = this.#history.get(target);
    return ring ? ring.newest(ring.size) : [];
  }

  #keep(event: ObsyncEvent): void {
    const size = this.opts.ringSize ?? DEFAULT_RING_SIZE;
    if (size <= 0) return;
    ringOf(this.#rings, event.target, size).push(event);
    if (HISTORY.has(event.event)) ringOf(this.#history, event.target, this.opts.historySize ?? DEFAULT_HISTORY_SIZE).push(event);
  }

  #log(event: ObsyncEvent): void {
    const { time: _time, ...fields } = event;
    const level = this.opts.levels === 'info' ? 'info' : eventLevel(event);
    this.opts.logger[level](fields, EVENT_MESSAGES[event.event]);
  }
}

function ringOf(rings: Map<string, Ring<ObsyncEvent>>, target: string, size: number): Ring<ObsyncEvent> {
  let ring = rings.get(target);
  if (!ring) rings.set(target, (ring = new Ring(size)));
  return ring;
}
