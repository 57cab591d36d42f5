/**
 * A certificate obsync does not trust is named as such, with the NODE_EXTRA_CA_CERTS hint, and
 * is not retried as "no response": the request never left, and the same request fails the same way.
 */
import { collectionOf } from '../../src/kinds/registry.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AmbiguousWriteError, ApiError } from '../../src/core/errors.js';
import { Secret } from '../../src/core/secret.js';
import type { SelfHostedTarget } from '../../src/core/target.js';
import { createServicePort } from '../../src/remote/index.js';
import { httpsFront, makePki, opensslMissing, type HttpsFront, type TestPki } from './tls-cert.js';

const noOpenssl = opensslMissing();
let pki: TestPki;
let plain: Server;
let plainUrl: string;
let plainConnections = 0;
let front: HttpsFront;

function target(baseUrl: string): SelfHostedTarget {
  return {
    name: 't',
    variant: 'self-hosted',
    baseUrl,
    concurrency: 2,
    timeoutMs: 5_000,
    retries: 3,
    pacing: { limit: 0, windowMs: 1000 },
    embedded: false,
    apiKey: new Secret('tls-test-key'),
  };
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

beforeAll(async () => {
  if (noOpenssl) return;
  pki = makePki();
  plain = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'));
  plain.on('connection', () => (plainConnections += 1));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  front = await httpsFront(pki, plainUrl);
});

afterAll(async () => {
  if (noOpenssl) return;
  await front.close();
  await new Promise<void>((resolve) => plain.close(() => resolve()));
  pki.remove();
});

describe.skipIf(noOpenssl !== null)(`TLS failures${noOpenssl ? ` (skipped: ${noOpenssl})` : ''}`, () => {
  it('names an untrusted certificate, hints at NODE_EXTRA_CA_CERTS, and does not retry it', async () => {
    const port = createServicePort(target(front.url));
    const before = front.connections();
    const err = await failure(collectionOf(port, 'Dashboard').list());
    await port.close();
    expect(err.code).toBe('TLS_CERTIFICATE');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/TLS certificate of https:\/\/127\.0\.0\.1:\d+ not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(err.message).not.toMatch(/no response/);
    expect(err.hint).toMatch(/NODE_EXTRA_CA_CERTS/);
    // retries: 3 would have opened four connections.
    expect(front.connections() - before).toBe(1);
  });

  it('does not call a create refused at the handshake an ambiguous write: it was never sent', async () => {
    const port = createServicePort(target(front.url));
    const err = await failure(collectionOf(port, 'Dashboard').create({ name: 'x', tiles: [] }));
    await port.close();
    expect(err).not.toBeInstanceOf(AmbiguousWriteError);
    expect(err.code).toBe('TLS_CERTIFICATE');
  });

  it('names a handshake with a plain HTTP port (https:// by mistake) and does not retry it', async () => {
    const port = createServicePort(target(plainUrl.replace('http:', 'https:')));
    const before = plainConnections;
    const err = await failure(collectionOf(port, 'Dashboard').list());
    await port.close();
    expect(err.code).toBe('TLS_HANDSHAKE');
    expect(err.message).toMatch(/TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed \(ERR_SSL_/);
    expect(err.hint).toMatch(/baseUrl/);
    expect(plainConnections - before).toBe(1);
  });
});
