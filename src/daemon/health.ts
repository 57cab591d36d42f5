/**
 * `/livez`, `/healthz` (alias), `/readyz` and `/metrics` on node:http. Probes read the status;
 * `/readyz` also says per target why (`{ready, targets: {name: {ready, reason, leader}}}`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DaemonMetrics } from './metrics.js';

/** One target's readiness; `leader` only where replicas elect a leader (apply mode). */
export interface TargetReadiness {
  ready: boolean;
  reason: string;
  leader?: boolean;
}

/** The process: ready only when every target is. */
export interface Readiness {
  ready: boolean;
  /** Why not, when not (shutting down, or the targets that are not ready). */
  reason?: string;
  targets: Record<string, TargetReadiness>;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

export async function startHealthServer(
  host: string,
  port: number,
  readiness: () => Readiness,
  metrics: DaemonMetrics,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/livez' || path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (path === '/readyz') {
      const r = readiness();
      res.writeHead(r.ready ? 200 : 503, { 'content-type': 'application/json' }).end(`${JSON.stringify(r)}\n`);
      return;
    }
    if (path === '/metrics') {
      metrics.text().then(
        (body) => res.writeHead(200, { 'content-type': metrics.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1_000).unref();
      }),
  };
}
