/** `createServicePort(target)`: the engine's view of one target, over HTTP. */
import type * as z from 'zod';
import type { WriteFence } from '../core/fence.js';
import { registerSecret } from '../core/scrub.js';
import type { Secret } from '../core/secret.js';
import type { LiveObject } from '../core/live.js';
import type { CollectionPort, ServicePort } from '../core/ports.js';
import type { Target } from '../core/target.js';
import { definitionOf, type AnyKind, type LiveOf } from '../kinds/registry.js';
import { withMark, withoutMark, type Mark, type MarkField } from '../kinds/mark.js';
import type { Logger } from '../log/logger.js';
import type { Telemetry } from '../telemetry/api.js';
import { Api, type Requester } from './api.js';
import { collectionPort } from './collection.js';
import { hostedCapabilities, hostedEnvelope, hostedRoots, pipesAwake, type HostedLocation } from './hosted.js';
import type { ProxySettings } from './network.js';
import { selfHostedCapabilities, selfHostedEnvelope, selfHostedRoots } from './selfhosted.js';
import { Transport } from './transport.js';
import type { WaitOptions, WaitReport } from './transport-types.js';
import { composedPort, type TeamPorts } from './team-kinds.js';

export type { ProxySettings } from './network.js';

export interface PortOptions {
  logger?: Logger;
  onResponse?: (method: string, status: number) => void;
  /** The proxy to reach the target through (HTTP(S)_PROXY / NO_PROXY, read by the CLI). */
  proxy?: ProxySettings;
  /** Every wait over 2 s (server-requested or pacing), for a progress line or a log. */
  onWait?: (wait: WaitReport) => void;
  /** Retries and requests slow to answer, for a terminal's progress line. */
  progress?: Pick<WaitOptions, 'onSlow' | 'onRetry'>;
  /** The gate of every write (the run's writer lease); none: writes are not fenced. */
  fence?: WriteFence;
  /** The target's "managed in Git" mark: added to every body sent, taken out of every object read. */
  mark?: Mark;
  /** obsync's telemetry: a span per request. */
  telemetry?: Telemetry;
}

/**
 * Which service a port talks to: a target's name and variant (and, hosted, where the service is,
 * and the key id it authenticates with: the keys port never disables or deletes that key).
 */
export type PortLocation = { name: string; variant: 'self-hosted' } | ({ name: string; variant: 'hosted'; keyId: string } & HostedLocation);

export function createServicePort(target: Target, opts: PortOptions = {}): ServicePort {
  const authorization =
    target.variant === 'hosted' ? `Basic ${basicToken(target.keyId, target.keySecret)}` : `Bearer ${target.apiKey.reveal()}`;
  const transport = new Transport({
    name: target.name,
    baseUrl: target.baseUrl,
    authorization,
    concurrency: target.concurrency,
    timeoutMs: target.timeoutMs,
    retries: target.retries,
    pacing: target.pacing.limit > 0 ? target.pacing : null,
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.onResponse ? { onResponse: opts.onResponse } : {}),
    ...(opts.proxy ? { proxy: opts.proxy } : {}),
    ...(target.maxResponseBytes ? { maxResponseBytes: target.maxResponseBytes } : {}),
    ...(opts.fence ? { fence: opts.fence } : {}),
    ...(opts.telemetry ? { telemetry: opts.telemetry } : {}),
    waits: {
      ...(target.maxWaitMs ? { maxWaitMs: target.maxWaitMs } : {}),
      ...(target.deadlineMs ? { deadlineMs: target.deadlineMs } : {}),
      ...(opts.onWait ? { onWait: opts.onWait } : {}),
      ...opts.progress,
    },
  });
  return servicePortOver(transport, target, opts.logger, opts.mark);
}

/**
 * `base64(keyId:keySecret)`, told to the scrubber as a whole: its secret's part alone is masked
 * anyway, but an echoed header must not give away the key id beside it (issue 53).
 */
function basicToken(keyId: string, keySecret: Secret): string {
  const token = Buffer.from(`${keyId}:${keySecret.reveal()}`).toString('base64');
  registerSecret(token);
  return token;
}

/** The service port over any requester: each kind's collection comes from the routes its definition declares. */
export function servicePortOver(requester: Requester, at: PortLocation, logger?: Logger, mark?: Mark): ServicePort {
  const api = new Api(requester, at.variant === 'hosted' ? hostedEnvelope(at.paths) : selfHostedEnvelope);
  const roots: Record<'observability' | 'pipes' | 'service', string | null> = at.variant === 'hosted' ? hostedRoots(at) : selfHostedRoots();
  const awake = at.variant === 'hosted' ? pipesAwake(api, at, at.name, logger) : undefined;
  const ports = new Map<AnyKind, CollectionPort<LiveObject> | null>();
  const team: { ports?: TeamPorts } = {};
  const collection = <K extends AnyKind>(kind: K): CollectionPort<LiveOf<K>> | null => {
    if (!ports.has(kind)) {
      const def = definitionOf(kind);
      const routes = def.routes[at.variant];
      const root = routes ? roots[routes.api] : null;
      if (routes?.port && root !== null) {
        ports.set(kind, composedPort(routes.port, api, root, at.name, team, def.live));
        return ports.get(kind) as CollectionPort<LiveOf<K>> | null;
      }
      const field = mark && def.managed ? def.markField : undefined;
      const plain =
        routes && root !== null ? collectionPort(api, root, routes, field && mark ? unmarked(def.live, field, mark) : def.live) : null;
      const port = plain && field && mark ? marking(plain, field, mark) : plain;
      // ClickPipes calls (the pipes API and its siblings on the service) wake an idle service first.
      ports.set(kind, port && routes && routes.api !== 'observability' && awake ? awake(port) : port);
    }
    // The definition's live schema is the kind's live form (the registry ties the two).
    return ports.get(kind) as CollectionPort<LiveOf<K>> | null;
  };
  const capabilities = at.variant === 'hosted' ? hostedCapabilities(api, at, at.keyId) : selfHostedCapabilities(api);
  return { target: at.name, variant: at.variant, stats: requester.stats, collection, close: () => requester.close(), ...capabilities };
}

/**
 * The mark is taken out of an object as it is parsed (before the item memo keeps it): the planner,
 * plans, pull and export never see it, and a daemon's unchanged objects stay the same objects.
 */
function unmarked<T extends object>(schema: z.ZodType<T>, field: MarkField, mark: Mark): z.ZodType<T> {
  return schema.transform((live) => withoutMark(field, live, mark));
}

/** Every create and update body gets the mark: what obsync writes says it is managed in Git. */
function marking<T extends { id: string }>(port: CollectionPort<T>, field: MarkField, mark: Mark): CollectionPort<T> {
  return {
    ...port,
    create: (body, o) => port.create(withMark(field, body, mark), o),
    update: (id, body, o) => port.update(id, withMark(field, body, mark), o),
  };
}
