/**
 * `/api/events/stream`: the events as Server-Sent Events, to a bounded number of clients. A client
 * past the limit is refused with 503 (a flood is refused, not served); a client that stops
 * reading is dropped once its unsent data passes a bound, so a slow reader never holds memory or
 * the daemon. Each event is serialised once for all clients; a client reconnecting with
 * `Last-Event-ID` first gets what it missed from the ring. Each message is named by its event.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus } from '../events/bus.js';
import type { ObsyncEvent } from '../events/vocabulary.js';

export const DEFAULT_MAX_STREAM_CLIENTS = 100;
const HEARTBEAT_MS = 15_000;
/** Unsent bytes a client may have before it is dropped. */
const MAX_BUFFERED = 1 << 20;

interface Client {
  res: ServerResponse;
  target: string | undefined;
}

export interface StreamOptions {
  maxClients?: number;
  /** Called when the number of clients changes, and for each refusal (metrics). */
  onClients?: (count: number) => void;
  onRefused?: () => void;
}

export class EventStream {
  readonly #clients = new Set<Client>();
  readonly #unsubscribe: () => void;
  #heartbeat: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(
    private readonly bus: EventBus,
    private readonly opts: StreamOptions = {},
  ) {
    this.#unsubscribe = bus.subscribe((event) => this.#send(event));
  }

  get clients(): number {
    return this.#clients.size;
  }

  accept(req: IncomingMessage, res: ServerResponse, target: string | undefined, headers: Record<string, string>): void {
    const max = this.opts.maxClients ?? DEFAULT_MAX_STREAM_CLIENTS;
    if (this.#closed || this.#clients.size >= max) {
      this.opts.onRefused?.();
      res
        .writeHead(503, { ...headers, 'content-type': 'application/json', 'retry-after': '10' })
        .end(`${JSON.stringify({ error: `too many clients on /api/events/stream (at most ${max}); try again later` })}\n`);
      return;
    }
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    const client: Client = { res, target };
    this.#clients.add(client);
    this.opts.onClients?.(this.#clients.size);
    const lastId = Number(req.headers['last-event-id']);
    if (Number.isInteger(lastId) && lastId >= 0)
      for (const e of this.bus.list({ target, since: lastId })) this.#write(client, frame(e, JSON.stringify(e)));
    const drop = () => this.#drop(client);
    req.once('close', drop);
    res.once('close', drop);
    this.#heartbeat ??= setInterval(() => this.#beat(), HEARTBEAT_MS).unref();
  }

  /** Ends every stream (shutdown). */
  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const client of [...this.#clients]) {
      client.res.end();
      this.#drop(client);
    }
  }

  #send(event: ObsyncEvent): void {
    if (this.#clients.size === 0) return;
    const data = frame(event, JSON.stringify(event));
    for (const client of [...this.#clients]) if (client.target === undefined || client.target === event.target) this.#write(client, data);
  }

  #beat(): void {
    for (const client of [...this.#clients]) this.#write(client, ': keep-alive\n\n');
  }

  #write(client: Client, data: string): void {
    if (client.res.writableLength > MAX_BUFFERED) {
      client.res.destroy();
      this.#drop(client);
      return;
    }
    client.res.write(data);
  }

  #drop(client: Client): void {
    if (!this.#clients.delete(client)) return;
    this.opts.onClients?.(this.#clients.size);
    if (this.#clients.size === 0 && this.#heartbeat) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = null;
    }
  }
}

/**
 * One message: named by its event (`drift`, `run-finished`…, the vocabulary's names, so a browser's
 * `EventSource.addEventListener('drift', …)` gets exactly those), numbered for `Last-Event-ID`.
 */
function frame(event: ObsyncEvent, json: string): string {
  return `event: ${event.event}\nid: ${event.seq}\ndata: ${json}\n\n`;
}
