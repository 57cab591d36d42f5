/** Desired objects for the policy tests, as the loader makes them (one per line of a fake file). */
import { addressOf, type Kind } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';

let line = 0;

export function resource(kind: Kind, name: string, spec: Record<string, unknown>, extra: Partial<DesiredResource> = {}): DesiredResource {
  line += 10;
  return { kind, name, address: addressOf(kind, name), labels: {}, spec, source: { file: 'manifests/all.yaml', line, col: 1 }, ...extra };
}

export const webhook = (name: string, extra: Partial<DesiredResource> = {}) =>
  resource('Webhook', name, { service: 'generic', name, url: 'https://hooks.example.com/x' }, extra);

export const alert = (name: string, webhookName: string | { id: string }, extra: Partial<DesiredResource> = {}) =>
  resource('Alert', name, { dashboard: 'd', tile: 't', threshold: 1, channel: { type: 'webhook', webhook: webhookName } }, extra);

export const dashboard = (name: string, spec: Record<string, unknown> = {}, extra: Partial<DesiredResource> = {}) =>
  resource('Dashboard', name, { name, tiles: [], ...spec }, extra);
