/**
 * The connection guard against a model, over random sequences of connections (from a few
 * addresses), requests and their ends: the limits always hold; a connection serving a request is
 * never closed for room; a new one is refused only when every connection it could take room from
 * is serving; the one closed for room is the one quiet the longest of the fullest address.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionGuard } from './connections.js';

class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

interface Modelled {
  socket: FakeSocket;
  address: string;
  busy: number;
  quietSince: number;
  responses: EventEmitter[];
}

type Op = { kind: 'connect'; address: number } | { kind: 'request'; pick: number } | { kind: 'finish'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('connect' as const), address: fc.nat({ max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('request' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat() }) },
);

function run(limits: { total: number; perAddress: number }, ops: readonly Op[]): void {
  const server = new EventEmitter();
  const guard = new ConnectionGuard(limits);
  guard.attach(server as unknown as Server);
  const open: Modelled[] = [];
  let clock = 0;
  const quiet = (cs: readonly Modelled[]) => cs.filter((c) => c.busy === 0);
  for (const o of ops) {
    if (o.kind === 'connect') {
      const address = `127.0.0.${o.address + 1}`;
      const same = open.filter((c) => c.address === address);
      const conn: Modelled = { socket: new FakeSocket(address), address, busy: 0, quietSince: ++clock, responses: [] };
      // What the guard must do, decided before it acts.
      const byAddress = same.length >= limits.perAddress;
      const scope = byAddress ? same : open;
      const full = byAddress || open.length >= limits.total;
      const counts = new Map<string, number>();
      for (const c of quiet(open)) counts.set(c.address, (counts.get(c.address) ?? 0) + 1);
      const most = Math.max(0, ...counts.values());
      server.emit('connection', conn.socket);
      const closed = open.filter((c) => c.socket.destroyed);
      if (!full) {
        expect(conn.socket.destroyed).toBe(false);
        expect(closed).toEqual([]);
      } else if (quiet(scope).length === 0) {
        expect(conn.socket.destroyed).toBe(true);
        expect(closed).toEqual([]);
      } else {
        expect(conn.socket.destroyed).toBe(false);
        expect(closed).toHaveLength(1);
        const [gone] = closed;
        if (!gone) throw new Error('unreachable');
        expect(gone.busy).toBe(0);
        const from = byAddress ? same : open.filter((c) => c.address === gone.address);
        if (!byAddress) expect(quiet(from)).toHaveLength(most);
        expect(gone.quietSince).toBe(Math.min(...quiet(from).map((c) => c.quietSince)));
      }
      for (const c of closed) open.splice(open.indexOf(c), 1);
      if (!conn.socket.destroyed) open.push(conn);
    } else if (open.length > 0) {
      const conn = open[o.pick % open.length];
      if (!conn) continue;
      if (o.kind === 'request') {
        const res = new EventEmitter();
        conn.busy += 1;
        conn.responses.push(res);
        server.emit('request', { socket: conn.socket }, res);
      } else {
        const res = conn.responses.shift();
        if (!res) continue;
        conn.busy -= 1;
        conn.quietSince = ++clock;
        res.emit('close');
      }
    }
    expect(guard.counts().open).toBe(open.length);
    expect(open.length).toBeLessThanOrEqual(limits.total);
    for (const c of open) expect(open.filter((x) => x.address === c.address).length).toBeLessThanOrEqual(limits.perAddress);
  }
}

describe('the connection guard', () => {
  it('keeps the limits, never closes a connection serving a request, and makes room from the quiet one of the fullest address', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(op, { maxLength: 120 }),
        (total, perAddress, ops) => run({ total, perAddress }, ops),
      ),
      { numRuns: 300 },
    );
  });

  it('a connection closed by its client is forgotten', () => {
    const server = new EventEmitter();
    const guard = new ConnectionGuard({ total: 2, perAddress: 2 });
    guard.attach(server as unknown as Server);
    const a = new FakeSocket('127.0.0.1');
    server.emit('connection', a);
    a.destroy();
    expect(guard.counts()).toMatchObject({ open: 0, addresses: 0 });
  });
});
