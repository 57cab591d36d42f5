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
  });
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
  const { code, message } = innermost(err);
  if (code !== undefined && CERTIFICATE_ERRORS.has(code)) return { kind: 'tls-certificate', code, detail: message };
  if (code !== undefined && /^ERR_SSL_/.test(code)) return { kind: 'tls-handshake', code, detail: message };
  const proxyStatus = /^Proxy response \((\d+)\) !== 200/.exec(message);
  if (proxyStatus)
    return { kind: 'proxy', code: `PROXY_${proxyStatus[1] ?? ''}`, detail: `the proxy answered ${proxyStatus[1] ?? '?'} to CONNECT` };
  return { kind: 'network', code: code ?? (timedOut ? 'TIMEOUT' : 'UNKNOWN'), detail: message };
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
