/**
 * A throwaway PKI for TLS tests, made by the `openssl` binary in a temp directory at test time
 * (no private key is ever committed): a CA, and a server certificate it signs for 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  dir: string;
  /** PEM file of the CA: what a user puts in NODE_EXTRA_CA_CERTS. */
  caFile: string;
  cert: Buffer;
  key: Buffer;
  remove(): void;
}

/** Why TLS tests cannot run here, or null when openssl works. */
export function opensslMissing(): string | null {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'the openssl binary is not installed, so no test certificate can be made';
  }
}

export function makePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'obsync-pki-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=obsync test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  ssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-set_serial',
    '1',
    '-days',
    '2',
    '-extfile',
    'server.ext',
    '-out',
    'server.pem',
  );
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    cert: readFileSync(join(dir, 'server.pem')),
    key: readFileSync(join(dir, 'server.key')),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface HttpsFront {
  url: string;
  /** TCP connections accepted (a retried request opens another). */
  connections(): number;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with the PKI's certificate, forwarding every request to `upstream` (plain HTTP, loopback). */
export async function httpsFront(pki: TestPki, upstream: string): Promise<HttpsFront> {
  const target = new URL(upstream);
  let connections = 0;
  const server: Server = createHttpsServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    const forward = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
