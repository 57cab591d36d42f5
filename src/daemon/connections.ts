/**
 * How the daemon's HTTP server keeps room for its probes (issue 50): a flood of slow or idle
 * connections, which needs no token, must never make `/livez`, `/readyz` or `/metrics` refuse a
 * connection (Kubernetes would restart a healthy daemon). A probe cannot be told from a flood
 * when it connects (its path comes later), so no new connection is refused while an older one is
 * doing nothing: past the limits, the connection that has waited longest without a request under
 * way (a request head still arriving, or idle between requests) is closed to make room, taken
 * from the address that holds the most. A head has a deadline (`headersTimeoutMs`), so a slow
 * one ends on its own too. Only connections serving a request (an event stream, bounded by its
 * own limit) are never closed for room; when every one is, the new connection is refused.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface HttpLimits {
  /** Open connections at once. */
  total: number;
  /** Open connections from one remote address. */
  perAddress: number;
  /** A request head must have arrived whole by then (408 and closed otherwise). */
  headersTimeoutMs: number;
  /** A whole request (head and body) must have arrived by then. */
  requestTimeoutMs: number;
  /** An idle connection between two requests is closed after this long. */
  keepAliveMs: number;
  /** A connection that neither sends nor takes data (a client that stopped reading) is closed after this long. */
  inactiveMs: number;
  /** How often Node checks the two request deadlines (they hold to within this). */
  checkEveryMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  total: 512,
  // Above the 100 event streams a reverse proxy may hold for all its users from one address.
  perAddress: 128,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveMs: 5_000,
  // Above the event stream's 15 s keep-alive comment.
  inactiveMs: 60_000,
  checkEveryMs: 1_000,
};

/** The options of `createServer` that bound a request's arrival (they can only be set there). */
export function requestDeadlines(limits: HttpLimits): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
    connectionsCheckingInterval: limits.checkEveryMs,
  };
}

interface Connection {
  socket: Socket;
  address: string;
  /** Requests under way on it (more than one only when pipelined). */
  busy: number;
  /** Order of its last progress (connected, or its last response ended): the lowest has waited longest. */
  quietSince: number;
}

/** What the guard holds now (tests and the log). */
export interface ConnectionCounts {
  open: number;
  addresses: number;
  /** Connections closed to make room, and new ones refused because every other one was serving. */
  closedForRoom: number;
  refused: number;
}

export class ConnectionGuard {
  readonly #all = new Map<Socket, Connection>();
  readonly #byAddress = new Map<string, Set<Connection>>();
  #clock = 0;
  #closedForRoom = 0;
  #refused = 0;

  constructor(private readonly limits: Pick<HttpLimits, 'total' | 'perAddress'>) {}

  /** Watches the server's connections and requests; the server's own `maxConnections` must stay unset. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req, res) => {
      const conn = this.#all.get(req.socket);
      if (!conn) return;
      conn.busy += 1;
      res.once('close', () => {
        conn.busy -= 1;
        conn.quietSince = ++this.#clock;
      });
    });
  }

  counts(): ConnectionCounts {
    return { open: this.#all.size, addresses: this.#byAddress.size, closedForRoom: this.#closedForRoom, refused: this.#refused };
  }

  /** A new connection: kept, after closing the quiet ones it needs room from; refused only when none is quiet. */
  admit(socket: Socket): void {
    const conn: Connection = { socket, address: socket.remoteAddress ?? 'unknown', busy: 0, quietSince: ++this.#clock };
    this.#add(conn);
    socket.once('close', () => this.#remove(conn));
    const ofAddress = this.#byAddress.get(conn.address) ?? new Set<Connection>();
    while (ofAddress.size > this.limits.perAddress) if (!this.#makeRoom(conn, ofAddress)) return;
    while (this.#all.size > this.limits.total) if (!this.#makeRoom(conn, this.#crowdedAddress(conn))) return;
  }

  /** Closes the connection of `among` quiet the longest (never `incoming` while another is quiet); false when it refused `incoming`. */
  #makeRoom(incoming: Connection, among: Iterable<Connection>): boolean {
    let oldest: Connection | undefined;
    for (const c of among) if (c !== incoming && c.busy === 0 && (oldest === undefined || c.quietSince < oldest.quietSince)) oldest = c;
    if (oldest === undefined) {
      this.#refused += 1;
      this.#close(incoming);
      return false;
    }
    this.#closedForRoom += 1;
    this.#close(oldest);
    return true;
  }

  /** The connections of the address holding the most quiet ones besides `incoming` (a flood's address, not the probe's). */
  #crowdedAddress(incoming: Connection): Set<Connection> {
    let crowded = new Set<Connection>();
    let most = 0;
    for (const conns of this.#byAddress.values()) {
      let quiet = 0;
      for (const c of conns) if (c.busy === 0 && c !== incoming) quiet += 1;
      if (quiet > most) [crowded, most] = [conns, quiet];
    }
    return crowded;
  }

  #add(conn: Connection): void {
    this.#all.set(conn.socket, conn);
    const set = this.#byAddress.get(conn.address);
    if (set) set.add(conn);
    else this.#byAddress.set(conn.address, new Set([conn]));
  }

  /** Forgotten at once (the socket's own close event comes later and finds nothing). */
  #close(conn: Connection): void {
    this.#remove(conn);
    conn.socket.destroy();
  }

  #remove(conn: Connection): void {
    if (!this.#all.delete(conn.socket)) return;
    const set = this.#byAddress.get(conn.address);
    set?.delete(conn);
    if (set?.size === 0) this.#byAddress.delete(conn.address);
  }
}
