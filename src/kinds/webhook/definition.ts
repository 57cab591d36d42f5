/** Webhooks (selfhosted-api §1.5, §3.3): read, and referred to by name from alert channels. */
import { wireWebhook, type WireWebhook } from '../../core/wire.js';
import type { ReadableKind } from '../kind.js';

export const webhook: ReadableKind<'Webhook', WireWebhook> = {
  kind: 'Webhook',
  managed: false,
  noun: 'webhook',
  refersTo: [],
  live: wireWebhook,
  routes: {
    'self-hosted': { api: 'observability', path: 'webhooks', paging: 'offset' },
    hosted: { api: 'observability', path: 'webhooks', paging: 'offset' },
  },
  read: 'always',
  displayName: (live) => live.name,
};
