/** The service, its pipes and the organization's API keys in the hosted variant (restored from `--data` when present). */
import { createKeysDomain } from '../domain/keys.js';
import type { KeysDomain, PipesDomain } from '../domain/hosted-contract.js';
import { createPipesDomain } from '../domain/pipes.js';
import { createServiceDomain, type ServiceDomain } from '../domain/service.js';
import type { Credentials } from './handlers.js';
import type { Persistence } from './persistence.js';

export interface HostedDomainsInput {
  persistence: Persistence;
  credentials: Credentials;
  seed: 'demo' | 'none';
  transitionMs: number;
}

export function hostedDomains({ persistence, credentials, seed, transitionMs }: HostedDomainsInput): {
  pipes: PipesDomain;
  keys: KeysDomain;
  service: ServiceDomain;
} {
  const pipesSnapshot = persistence.load('pipes');
  const keysSnapshot = persistence.load('keys');
  const serviceSnapshot = persistence.load('service');
  const service = createServiceDomain({
    serviceId: credentials.serviceId,
    transitionMs,
    ...(serviceSnapshot ? { snapshot: serviceSnapshot } : {}),
  });
  const pipes = createPipesDomain({
    serviceId: credentials.serviceId,
    seed,
    transitionMs,
    ...(pipesSnapshot ? { snapshot: pipesSnapshot } : {}),
  });
  const keys = createKeysDomain({
    bootstrap: { keyId: credentials.keyId, keySecret: credentials.keySecret },
    ...(keysSnapshot ? { snapshot: keysSnapshot } : {}),
  });
  persistence.track('pipes', pipes);
  persistence.track('keys', keys);
  persistence.track('service', service);
  return { pipes, keys, service };
}
