/**
 * The probes survive a connection flood (issue 50): the daemon's HTTP server (in process, with its
 * real limits, status token and event stream) is flooded with connections that need no token —
 * request heads arriving a line at a time, connections that send nothing, idle keep-alives,
 * refused requests kept open, many from the probes' own address — and while they are open
 * `/livez`, `/readyz` and `/metrics` answer every time on a new connection. A head that takes too
 * long is cut with 408. (Before: 356 such connections made every probe's connection refused.)
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/core/secret.js';
import { DEFAULT_HTTP_LIMITS } from '../../src/daemon/connections.js';
import { DaemonHost } from '../../src/daemon/host.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { EventBus } from '../../src/events/bus.js';
import { nullLogger } from '../../src/log/logger.js';

type Kind = 'slow-head' | 'silent' | 'idle-keep-alive' | 'refused-kept-open';

/** A flood: how many connections of which kind, from how many loopback addresses (the first is the probes' own, 127.0.0.1). */
interface Flood {
  kind: Kind;
  connections: number;
  addresses: number;
}

const SCENARIOS: { name: string; floods: Flood[] }[] = [
  {
    name: 'slow request heads from several addresses (more than the 356 that starved the probes)',
    floods: [{ kind: 'slow-head', connections: 400, addresses: 8 }],
  },
  { name: 'silent connections from the probes’ own address', floods: [{ kind: 'silent', connections: 400, addresses: 1 }] },
  { name: 'idle keep-alive connections', floods: [{ kind: 'idle-keep-alive', connections: 400, addresses: 4 }] },
  {
    name: 'every kind at once, past the total limit',
    floods: [
      { kind: 'slow-head', connections: 250, addresses: 10 },
      { kind: 'silent', connections: 150, addresses: 1 },
      { kind: 'idle-keep-alive', connections: 100, addresses: 2 },
      { kind: 'refused-kept-open', connections: 100, addresses: 4 },
    ],
  },
];

const TOKEN = 'flood-status-token-7c1f0a9e2b';
let host: DaemonHost;
let port: number;

/** A daemon host with no targets on a loopback port, `extra` over the defaults. */
function hostWith(extra: Partial<ConstructorParameters<typeof DaemonHost>[1]>): DaemonHost {
  return new DaemonHost([], {
    listen: { host: '127.0.0.1', port: 0 },
    watch: false,
    debounceMs: 0,
    logger: nullLogger(),
    metrics: new DaemonMetrics('test'),
    events: new EventBus({ logger: nullLogger(), levels: 'by-event' }),
    version: 'test',
    ...extra,
  });
}

beforeAll(async () => {
  host = hostWith({ statusToken: new Secret(TOKEN) });
  await host.start();
  port = Number(new URL(host.url ?? '').port);
});

afterAll(async () => {
  await host?.stop();
});

/** Opens one flood connection from `from`; resolves once it is in the state its kind holds. */
function open(kind: Kind, from: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    socket.on('error', () => undefined);
    // Closed by the server before it settled (to make room): it still counts as part of the flood that was sent.
    socket.once('close', () => resolve(socket));
    socket.once('connect', () => {
      if (kind === 'silent') return resolve(socket);
      if (kind === 'slow-head') {
        socket.write('GET /api/status HTTP/1.1\r\nHost: obsync\r\n');
        // One more header line every few seconds, never the blank line that ends the head.
        const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 3_000);
        socket.once('close', () => clearInterval(drip));
        return resolve(socket);
      }
      socket.write(`GET ${kind === 'idle-keep-alive' ? '/livez' : '/api/status'} HTTP/1.1\r\nHost: obsync\r\n\r\n`);
      socket.once('data', () => resolve(socket));
    });
  });
}

async function flood(floods: readonly Flood[]): Promise<Socket[]> {
  const opening: Promise<Socket>[] = [];
  for (const f of floods) for (let i = 0; i < f.connections; i++) opening.push(open(f.kind, `127.0.0.${(i % f.addresses) + 1}`));
  return Promise.all(opening);
}

/** A probe as the kubelet sends it: a new connection, one GET, `Connection: close`. */
function probe(path: string, headers: Record<string, string> = {}): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers: { connection: 'close', ...headers } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

describe('the probes under a connection flood', () => {
  it.each(SCENARIOS)('answer on every new connection: $name', async ({ floods }) => {
    const sockets = await flood(floods);
    try {
      const answers: (number | string)[] = [];
      for (let round = 0; round < 3; round++)
        for (const path of ['/livez', '/readyz', '/metrics']) answers.push(`${path} ${await probe(path)}`);
      expect(answers).toEqual(Array.from({ length: 3 }, () => ['/livez 200', '/readyz 200', '/metrics 200']).flat());
      expect(await probe('/api/status', { authorization: `Bearer ${TOKEN}` })).toBe(200);
      const held = host.connections;
      expect(held?.open).toBeLessThanOrEqual(DEFAULT_HTTP_LIMITS.total);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('a request head that takes too long', () => {
  it('is answered 408 and closed at the head deadline', async () => {
    const slow = hostWith({ http: { limits: { headersTimeoutMs: 300, checkEveryMs: 100 } } });
    await slow.start();
    try {
      const url = new URL(slow.url ?? '');
      const answer = await new Promise<string>((resolve) => {
        const socket = connect({ host: url.hostname, port: Number(url.port) });
        let got = '';
        const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 50);
        socket.on('data', (d: Buffer) => (got += d.toString()));
        socket.on('error', () => undefined);
        // Without a head deadline nothing would ever close it: give up long after the 300 ms one.
        socket.setTimeout(10_000, () => socket.destroy());
        socket.once('close', () => {
          clearInterval(drip);
          resolve(got);
        });
        socket.write('GET /livez HTTP/1.1\r\nHost: obsync\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await slow.stop();
    }
  });
});
