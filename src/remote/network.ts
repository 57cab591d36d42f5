/**
 * How requests reach a target: directly (one Pool per origin) or through the proxy named by
 * HTTP_PROXY / HTTPS_PROXY / NO_PROXY (undici's EnvHttpProxyAgent), and what a failure that
 * produced no response means: a certificate that was not trusted, a proxy that refused the
 * tunnel, or a plain connection failure.
 */
import { EnvHttpProxyAgent, Pool, type Dispatcher } from 'undici';

/** The proxy settings, read from the environment by the CLI and passed down. Empty or absent means none. */
export interface ProxySettings {
  httpProxy?: string | undefined;
  httpsProxy?: string | undefined;
  noProxy?: string | undefined;
}

export function createDispatcher(origin: string, connections: number, proxy: ProxySettings | undefined): Dispatcher {
  const options = { connections, keepAliveTimeout: 10_000 };
  if (!proxy?.httpProxy && !proxy?.httpsProxy) return new Pool(origin, options);
  // Every value is passed, even empty: EnvHttpProxyAgent reads process.env for a missing one,
  // and only src/cli reads the environment.
  return new EnvHttpProxyAgent({
    ...options,
    httpProxy: proxy.httpProxy ?? '',
    httpsProxy: proxy.httpsProxy ?? '',
    noProxy: proxy.noProxy ?? '',
    clientFactory: proxyClient,
  });
}

/**
 * A connection to the proxy failed while setting up the tunnel (refused, reset, closed, no answer):
 * the request never reached the service. Carried as its own error, never as undici's
 * UND_ERR_SOCKET: undici 7 takes that code for a recoverable drop of an idle connection, keeps the
 * request queued and reconnects at once, for ever — a 100 % CPU loop against a proxy that resets
 * CONNECT (nodejs/undici#3897, fixed only in undici 8, which needs Node 22). As this error, undici
 * fails the request, and the transport's bounded retries with back-off decide what comes next.
 */
export class ProxyConnectError extends Error {
  override readonly name = 'ProxyConnectError';
  readonly code = 'PROXY_CONNECT';
  constructor(readonly reason: unknown) {
    super(`connection to the proxy failed: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
  }
}

/** The client ProxyAgent sends CONNECT through: its failures become ProxyConnectError. */
function proxyClient(proxyOrigin: URL, opts: object): Dispatcher {
  const pool = new Pool(proxyOrigin, opts);
  const connect: (options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData> = pool.connect.bind(pool);
  // ProxyAgent calls connect(options) and awaits the promise.
  Object.defineProperty(pool, 'connect', {
    value: (options: Dispatcher.ConnectOptions) =>
      connect(options).catch((err: unknown) => {
        throw new ProxyConnectError(err);
      }),
  });
  return pool;
}

/** OpenSSL's verification failures, as Node reports them in `err.code`. */
const CERTIFICATE_ERRORS = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export type FailureKind =
  /** The server's certificate was not trusted: the request was never sent, and retrying cannot help. */
  | 'tls-certificate'
  /** The TLS handshake itself failed (e.g. https:// to a plain HTTP port): not sent, not retried. */
  | 'tls-handshake'
  /** The proxy answered the CONNECT with something other than 200: not sent. */
  | 'proxy'
  /** Anything else: refused, reset, timed out. */
  | 'network';

export interface NetworkFailure {
  kind: FailureKind;
  /** The error code (`DEPTH_ZERO_SELF_SIGNED_CERT`, `ECONNRESET`, `TIMEOUT`, …). */
  code: string;
  /** A short description for the message; never carries a URL (a proxy URL may hold credentials). */
  detail: string;
}

export function classifyFailure(err: unknown, timedOut: boolean): NetworkFailure {
  const viaProxy = proxyConnectError(err);
  if (viaProxy) return proxyFailure(viaProxy, timedOut);
  const { code, message } = innermost(err);
  if (code !== undefined && CERTIFICATE_ERRORS.has(code)) return { kind: 'tls-certificate', code, detail: message };
  if (code !== undefined && /^ERR_SSL_/.test(code)) return { kind: 'tls-handshake', code, detail: message };
  const proxyStatus = /^Proxy response \((\d+)\) !== 200/.exec(message);
  if (proxyStatus)
    return { kind: 'proxy', code: `PROXY_${proxyStatus[1] ?? ''}`, detail: `the proxy answered ${proxyStatus[1] ?? '?'} to CONNECT` };
  return { kind: 'network', code: code ?? (timedOut ? 'TIMEOUT' : 'UNKNOWN'), detail: message };
}

function proxyConnectError(err: unknown): ProxyConnectError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    if (current instanceof ProxyConnectError) return current;
    current = current.cause;
  }
  return undefined;
}

/** What went wrong on the way to the proxy, in words that blame the proxy (never its URL: it may hold credentials). */
function proxyFailure(err: ProxyConnectError, timedOut: boolean): NetworkFailure {
  const inner = err.reason instanceof Error ? (err.reason as { code?: unknown }).code : undefined;
  const code = typeof inner === 'string' ? inner : timedOut ? 'TIMEOUT' : 'UNKNOWN';
  const detail =
    code === 'ECONNREFUSED'
      ? 'the proxy refused the connection (nothing listens at the proxy address)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `the proxy's host name could not be resolved (${code})`
        : code === 'TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT'
          ? 'the proxy did not answer the CONNECT in time'
          : `the proxy closed or reset the connection before the tunnel was set up (${code})`;
  return { kind: 'proxy', code: `PROXY_${code}`, detail };
}

/** The error that carries a code: undici wraps some (a tunnel through a proxy) in `cause`. */
function innermost(err: unknown): { code: string | undefined; message: string } {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (CERTIFICATE_ERRORS.has(code) || /^ERR_SSL_/.test(code))) return { code, message: current.message };
    current = current.cause;
  }
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return { code: typeof code === 'string' ? code : undefined, message: err instanceof Error ? err.message : String(err) };
}
