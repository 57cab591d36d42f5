/**
 * A loopback HTTP proxy in front of the sandbox for hostile tests: it records every request as
 * it arrives and lets a test answer one itself (an echoing 400, a 429 with a day-long
 * Retry-After, an escape sequence in an error body) or hold it before passing it on.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ProxyReply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/** Answer the request (a reply), or pass it on to the sandbox (undefined); may wait first. */
export type Intercept = (req: ProxiedRequest) => Promise<ProxyReply | undefined> | ProxyReply | undefined;

export interface Proxy {
  url: string;
  /** Every request, in arrival order (recorded before it is answered or passed on). */
  arrivals: ProxiedRequest[];
  intercept: Intercept | undefined;
  close(): Promise<void>;
}

export async function startProxy(upstream: string, intercept?: Intercept): Promise<Proxy> {
  const target = new URL(upstream);
  const arrivals: ProxiedRequest[] = [];
  const proxy: Proxy = { url: '', arrivals, intercept, close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const incoming: ProxiedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      arrivals.push(incoming);
      void (async () => {
        const reply = await proxy.intercept?.(incoming);
        if (reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body);
          return;
        }
        const headers = { ...req.headers, host: target.host };
        const upstreamReq = request(
          { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstreamReq.on('error', () => res.destroy());
        upstreamReq.end(incoming.body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
