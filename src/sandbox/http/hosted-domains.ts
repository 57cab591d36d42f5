/** Pipes and API keys of the hosted variant (restored from `--data` when present). */
import { createKeysDomain } from '../domain/keys.js';
import type { KeysDomain, PipesDomain } from '../domain/hosted-contract.js';
import { createPipesDomain } from '../domain/pipes.js';
import type { Credentials } from './handlers.js';
import type { Persistence } from './persistence.js';

export interface HostedDomainsInput {
  persistence: Persistence;
  credentials: Credentials;
  seed: 'demo' | 'none';
  transitionMs: number;
}

export function hostedDomains({ persistence, credentials, seed, transitionMs }: HostedDomainsInput): { pipes: PipesDomain; keys: KeysDomain } {
  const pipesSnapshot = persistence.load('pipes');
  const keysSnapshot = persistence.load('keys');
  const pipes = createPipesDomain({ serviceId: credentials.serviceId, seed, transitionMs, ...(pipesSnapshot ? { snapshot: pipesSnapshot } : {}) });
  const keys = createKeysDomain({ bootstrap: { keyId: credentials.keyId, keySecret: credentials.keySecret }, ...(keysSnapshot ? { snapshot: keysSnapshot } : {}) });
  persistence.track('pipes', pipes);
  persistence.track('keys', keys);
  return { pipes, keys };
}
