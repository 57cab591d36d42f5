/** The parts of a Webhook spec the definition reads (the schema in ./schema.ts is the full truth), and its live form. */
import * as z from 'zod';
import { wireWebhook } from '../../core/wire.js';

export const WEBHOOK_SERVICES = ['slack', 'generic', 'incidentio'] as const;
export type WebhookService = (typeof WEBHOOK_SERVICES)[number];

export interface WebhookSpecView {
  service: WebhookService;
  name: string;
  url: string;
  description?: string | undefined;
  body?: string | undefined;
  headers?: Record<string, string> | undefined;
  queryParams?: Record<string, string> | undefined;
}

/** A webhook as the service returns it: headers and query parameters never, the body only for generic ones (selfhosted-api §4.3). */
export const webhookLive = wireWebhook.extend({ body: z.string().optional() });
export type WebhookLive = z.output<typeof webhookLive>;
