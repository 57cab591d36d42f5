/**
 * Signed webhooks in the Standard Webhooks form (standardwebhooks.com; what Flux's `generic-hmac`
 * provider does with its own header): each POST carries `webhook-id` (the same for every
 * attempt at one message), `webhook-timestamp` (Unix seconds of the attempt) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the base64 part of
 * a `whsec_…` secret. A receiver checks it with any Standard Webhooks library and refuses old
 * timestamps (replays).
 */
import { createHmac } from 'node:crypto';

export const SIGNING_SECRET_PREFIX = 'whsec_';

/** The key a `whsec_…` secret stands for (its base64 part, decoded). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret, 'base64');
}

export function signatureHeaders(key: Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
