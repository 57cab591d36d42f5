/** A resolved target: where obsync talks, with which credentials and how fast. Built by src/config. */
import type { Variant } from './ports.js';
import type { Secret } from './secret.js';

/** Client-side token bucket: at most `limit` requests per `windowMs`. */
export interface Pacing {
  limit: number;
  windowMs: number;
}

interface TargetBase {
  name: string;
  variant: Variant;
  /** Origin (and optional path prefix) of the API, without the variant's fixed path. */
  baseUrl: string;
  /** Maximum requests in flight. */
  concurrency: number;
  /** Per-request deadline. */
  timeoutMs: number;
  /** Attempts after the first for idempotent requests. */
  retries: number;
  pacing: Pacing;
  /** The longest wait a server may ask for before a request fails instead (default 60 s). */
  maxWaitMs?: number;
  /** A request's total time over all attempts and waits (default 300 s). */
  deadlineMs?: number;
  /** The largest response body read (default 32 MiB). */
  maxResponseBytes?: number;
  /** True for the embedded sandbox started in-process. */
  embedded: boolean;
}

export interface SelfHostedTarget extends TargetBase {
  variant: 'self-hosted';
  apiKey: Secret;
}

export interface HostedTarget extends TargetBase {
  variant: 'hosted';
  organizationId: string;
  serviceId: string;
  keyId: string;
  keySecret: Secret;
  /** Path segments under `/services/{serviceId}/`: `clickstack` and `clickpipes` on ClickHouse Cloud (the defaults). */
  paths: { observability: string; pipes: string };
}

export type Target = SelfHostedTarget | HostedTarget;

/** Published limits of each variant (DESIGN §1). */
export const VARIANT_RATE_LIMITS: Record<Variant, Pacing> = {
  hosted: { limit: 10, windowMs: 10_000 },
  'self-hosted': { limit: 100, windowMs: 60_000 },
};

/** The segments ClickHouse Cloud serves (hosted-api §2-3; the Terraform provider and clickhousectl use them). */
export const DEFAULT_PATHS = { observability: 'clickstack', pipes: 'clickpipes' } as const;

/**
 * Which service a plan was made for (DESIGN §4, trust invariant 9): a saved plan is applied only
 * to the same one. Printable: never a credential.
 */
export interface TargetIdentity {
  name: string;
  variant: Variant;
  /** The API's base URL without credentials, query or trailing slash; the embedded sandbox: `embedded sandbox (data in DIR)`. */
  baseUrl: string;
  /** Hosted: the organisation and service the target writes to. */
  organizationId?: string;
  serviceId?: string;
}

/** A base URL as a plan records it: scheme, host, port and path; no user, password, query or fragment. */
export function printableBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** `hosted at https://api.example.com, organisation o, service s`. */
export function describeIdentity(id: TargetIdentity): string {
  const where = [`${id.variant} at ${id.baseUrl}`];
  if (id.organizationId !== undefined) where.push(`organisation ${id.organizationId}`);
  if (id.serviceId !== undefined) where.push(`service ${id.serviceId}`);
  return `target '${id.name}' (${where.join(', ')})`;
}
