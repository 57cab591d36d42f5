/**
 * A live webhook as a manifest (obsync export). Its URL and a generic webhook's body are secrets
 * the service returns: placeholders in the manifest, the values only in the exporter's memory.
 * Headers, query parameters and an incident.io body are never returned: left out, which keeps
 * them as they are on the service (PUT keeps them while the URL and service stay).
 */
import type { JsonObject } from '../../core/wire.js';
import type { ExportContext } from '../kind.js';
import type { WebhookLive } from './model.js';

export function webhookToManifest(live: WebhookLive, ctx: ExportContext): JsonObject {
  const spec: JsonObject = { service: live.service, name: live.name.trim() };
  spec.url = ctx.secret('url', live.url ?? '');
  if (live.description !== undefined) spec.description = live.description;
  if (live.body !== undefined) spec.body = ctx.secret('body', live.body);
  if (live.service !== 'slack') {
    const unread = live.service === 'incidentio' ? 'headers, query parameters and body' : 'headers and query parameters';
    ctx.note(
      `the service never returns a webhook's ${unread}: any it has are kept as they are; declare them (with \${env:NAME}) to manage them`,
    );
  }
  return spec;
}
