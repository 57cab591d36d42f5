/** `createServicePort(target)`: the engine's view of one target, over HTTP. */
import type { ServicePort } from '../core/ports.js';
import type { Target } from '../core/target.js';
import type { Logger } from '../log/logger.js';
import { Api } from './api.js';
import { hostedEnvelope, hostedPorts } from './hosted.js';
import { selfHostedEnvelope, selfHostedPorts } from './selfhosted.js';
import type { ProxySettings } from './network.js';
import { Transport, type WaitReport } from './transport.js';

export type { ProxySettings } from './network.js';

export interface PortOptions {
  logger?: Logger;
  onResponse?: (method: string, status: number) => void;
  /** The proxy to reach the target through (HTTP(S)_PROXY / NO_PROXY, read by the CLI). */
  proxy?: ProxySettings;
  /** Every wait over 2 s (server-requested or pacing), for a progress line or a log. */
  onWait?: (wait: WaitReport) => void;
}

export function createServicePort(target: Target, opts: PortOptions = {}): ServicePort {
  const authorization =
    target.variant === 'hosted'
      ? `Basic ${Buffer.from(`${target.keyId}:${target.keySecret.reveal()}`).toString('base64')}`
      : `Bearer ${target.apiKey.reveal()}`;
  const transport = new Transport({
    baseUrl: target.baseUrl,
    authorization,
    concurrency: target.concurrency,
    timeoutMs: target.timeoutMs,
    retries: target.retries,
    pacing: target.pacing.limit > 0 ? target.pacing : null,
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.onResponse ? { onResponse: opts.onResponse } : {}),
    ...(opts.proxy ? { proxy: opts.proxy } : {}),
    waits: { ...(target.maxWaitMs ? { maxWaitMs: target.maxWaitMs } : {}), ...(target.deadlineMs ? { deadlineMs: target.deadlineMs } : {}), ...(opts.onWait ? { onWait: opts.onWait } : {}) },
  });
  const common = { target: target.name, stats: transport.stats, close: () => transport.close() };
  if (target.variant === 'hosted') {
    const api = new Api(transport, hostedEnvelope(target.paths));
    return { ...common, variant: 'hosted', ...hostedPorts(api, target, opts.logger) };
  }
  const api = new Api(transport, selfHostedEnvelope);
  return { ...common, variant: 'self-hosted', ...selfHostedPorts(api) };
}
