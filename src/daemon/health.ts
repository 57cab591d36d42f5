/**
 * The daemon's HTTP server on node:http: `/livez`, `/healthz` (alias), `/readyz` and `/metrics`
 * (always open, for probes; `/metrics` in OpenMetrics when the scraper asks for it), then the status
 * routes (./status-routes.ts). `/readyz` also says per target why, as a code (`{ready, targets: {name: {ready, code, error, since,
 * leader}}}`, ./readiness.ts):
 * it needs no token, so no text from the service reaches it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exposition } from './accept.js';
import { ConnectionGuard, DEFAULT_HTTP_LIMITS, requestDeadlines, type HttpLimits } from './connections.js';
import type { DaemonMetrics } from './metrics.js';
import { probeBody, type Readiness } from './readiness.js';
import type { Route } from './status-routes.js';

export type { Readiness, ReplicaReadiness, TargetReadiness } from './readiness.js';

export interface HealthServer {
  url: string;
  /** Its connections now (the flood tests read it). */
  guard: ConnectionGuard;
  close(): Promise<void>;
}

export interface HealthServerOptions {
  /** The status routes (./status-routes.ts), answered after the probes. */
  route?: Route;
  /** Connection limits and deadlines (./connections.ts); the defaults otherwise. */
  limits?: Partial<HttpLimits>;
}

export async function startHealthServer(
  host: string,
  port: number,
  readiness: () => Readiness,
  metrics: DaemonMetrics,
  opts: HealthServerOptions = {},
): Promise<HealthServer> {
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...opts.limits };
  const server: Server = createServer(requestDeadlines(limits), (req, res) => {
    const url = URL.parse(req.url ?? '/', 'http://obsync.invalid');
    if (url === null || !(req.url ?? '/').startsWith('/')) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request\n');
      return;
    }
    const path = url.pathname;
    // Read only: the one POST is the sign-in form of the status page (it sets a cookie, changes nothing).
    const post = req.method === 'POST' && path === '/login';
    if (req.method !== 'GET' && req.method !== 'HEAD' && !post) {
      res.writeHead(405, { allow: path === '/login' ? 'GET, HEAD, POST' : 'GET, HEAD' }).end();
      return;
    }
    if (path === '/livez' || path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (path === '/readyz') {
      const r = readiness();
      res.writeHead(r.ready ? 200 : 503, { 'content-type': 'application/json' }).end(`${JSON.stringify(probeBody(r))}\n`);
      return;
    }
    if (path === '/metrics') {
      metrics.exposition(exposition(req.headers.accept)).then(
        ({ body, contentType }) => res.writeHead(200, { 'content-type': contentType, vary: 'Accept' }).end(body),
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (opts.route?.(req, res, url)) return;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  server.keepAliveTimeout = limits.keepAliveMs;
  server.timeout = limits.inactiveMs;
  // No server.maxConnections: it refuses the newest connection, which may be a probe; the guard closes a quiet one instead.
  const guard = new ConnectionGuard(limits);
  guard.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}`,
    guard,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1_000).unref();
      }),
  };
}
