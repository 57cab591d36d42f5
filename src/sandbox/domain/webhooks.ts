/**
 * Webhook operations (reference §1.5, §3.3, §4.3, §4.4): `headers`/`queryParams` are stored but
 * never returned; a webhook still referenced by an alert cannot be deleted (409).
 */
import * as z from 'zod';
import type { DomainError, DomainResult, JsonRecord, PageQuery } from './contract.js';
import { paginate } from './paging.js';
import { badRequest, conflict, invalidIdParam, notFoundJson, ok, parseRequest } from './result.js';
import { findById, type Store } from './store.js';
import { webhookUrlProblem } from './webhook-url.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\r\n\t\x00-\x1F\x7F]/;
const noControl = (v: string) => !CONTROL.test(v);
// Field rules and messages of hyperdx utils/zod.ts (externalWebhookCreateSchema) at b52a6fa8.
const headerName = z
  .string()
  .min(1, 'Header name cannot be empty')
  .max(256)
  .regex(/^[!#$%&'*+\-.0-9A-Z^_`a-z|~]+$/, "Invalid header name. Only alphanumeric characters and !#$%&'*+-.^_`|~ are allowed")
  .refine((name) => !/^\d/.test(name), 'Header name cannot start with a number');
const headerValue = z.string().max(4096).refine(noControl, 'Header values cannot contain control characters');
const queryKey = z
  .string()
  .min(1, 'Query parameter name cannot be empty')
  .max(1024)
  .refine(noControl, 'Query parameter names cannot contain control characters');
const queryValue = z.string().max(4096).refine(noControl, 'Query parameter values cannot contain control characters');

const webhookBody = z
  .object({
    name: z.string().trim().min(1).max(1024),
    service: z.enum(['slack', 'generic', 'incidentio']),
    url: z.url({ error: 'Invalid url' }).max(2048),
    description: z.string().max(2048).optional(),
    queryParams: z
      .record(queryKey, queryValue)
      .refine((m) => Object.keys(m).length <= 100, 'A webhook cannot have more than 100 query parameters')
      .optional(),
    headers: z
      .record(headerName, headerValue)
      .refine((m) => Object.keys(m).length <= 100, 'A webhook cannot have more than 100 headers')
      .optional(),
    body: z.string().max(16384).optional(),
  })
  .superRefine((w, ctx) => {
    if (w.service !== 'slack') return;
    for (const key of ['headers', 'queryParams', 'body'] as const) {
      if (w[key] !== undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `${key} is not supported for the slack webhook service` });
    }
  });
type WebhookBody = z.output<typeof webhookBody>;

export function renderWebhook(stored: JsonRecord): JsonRecord {
  const out: JsonRecord = { id: stored.id ?? '', name: stored.name ?? '', service: stored.service ?? '' };
  for (const key of ['url', 'description'] as const) if (stored[key] !== undefined) out[key] = stored[key];
  if (stored.service === 'generic' && stored.body !== undefined) out.body = stored.body;
  out.createdAt = stored.createdAt ?? null;
  out.updatedAt = stored.updatedAt ?? null;
  return out;
}

function validate(
  store: Store,
  body: unknown,
  selfId: string | undefined,
): { ok: true; body: WebhookBody } | { ok: false; error: DomainError } {
  const parsed = parseRequest(webhookBody, body, selfId);
  if (!parsed.ok) return parsed;
  const data = parsed.value;
  if (selfId !== undefined && !findById(store.state.webhooks, selfId)) return notFoundJson('Webhook not found');
  const urlProblem = webhookUrlProblem(data.url, data.service);
  if (urlProblem) return badRequest(urlProblem);
  const clash = store.state.webhooks.some((w) => w.id !== selfId && w.service === data.service && w.name === data.name);
  if (clash) return badRequest('A webhook with this service and name already exists');
  return { ok: true, body: data };
}

function stored(body: WebhookBody, keep: JsonRecord): JsonRecord {
  const out: JsonRecord = { ...keep, name: body.name, service: body.service, url: body.url };
  if (body.description !== undefined) out.description = body.description;
  if (body.body !== undefined) out.body = body.body;
  if (body.headers !== undefined) out.headers = body.headers;
  if (body.queryParams !== undefined) out.queryParams = body.queryParams;
  for (const key of ['headers', 'queryParams'] as const) {
    const value = out[key];
    if (value !== undefined && value !== null && typeof value === 'object' && Object.keys(value).length === 0) delete out[key];
  }
  return out;
}

export function listWebhooks(store: Store, query: PageQuery): DomainResult<JsonRecord[]> {
  return paginate(store.state.webhooks, query, renderWebhook);
}

export function createWebhook(store: Store, body: unknown): DomainResult<JsonRecord> {
  const v = validate(store, body, undefined);
  if (!v.ok) return v;
  const now = store.nowIso();
  const webhook = stored(v.body, { id: store.newId(), createdAt: now, updatedAt: now });
  store.commit({ webhooks: [...store.state.webhooks, webhook] });
  return ok(renderWebhook(webhook));
}

export function updateWebhook(store: Store, id: string, body: unknown): DomainResult<JsonRecord> {
  const v = validate(store, body, id);
  if (!v.ok) return v;
  const previous = findById(store.state.webhooks, id) ?? {};
  const sameDestination = previous.url === v.body.url && previous.service === v.body.service;
  // Write-only fields survive an update that omits them, unless the destination changed.
  const keep: JsonRecord = { id, createdAt: previous.createdAt ?? store.nowIso(), updatedAt: store.nowIso() };
  if (sameDestination && previous.headers !== undefined) keep.headers = previous.headers;
  if (sameDestination && previous.queryParams !== undefined) keep.queryParams = previous.queryParams;
  const webhook = stored(v.body, keep);
  store.commit({ webhooks: store.state.webhooks.map((w) => (w.id === id ? webhook : w)) });
  return ok(renderWebhook(webhook));
}

/**
 * Like the server, only the legacy `channel` mirror (the first channel) counts as a reference, and
 * the reference check runs before the existence check.
 */
export function deleteWebhook(store: Store, id: string): DomainResult<JsonRecord> {
  const bad = invalidIdParam(id);
  if (bad) return bad;
  const users = store.state.alerts.filter((a) => {
    const first = Array.isArray(a.channels) ? a.channels[0] : undefined;
    return typeof first === 'object' && first !== null && !Array.isArray(first) && first.webhookId === id;
  }).length;
  if (users > 0) return conflict(`Cannot delete webhook: ${users} alert(s) still reference it. Reassign or remove those alerts first.`);
  if (!findById(store.state.webhooks, id)) return notFoundJson('Webhook not found');
  store.commit({ webhooks: store.state.webhooks.filter((w) => w.id !== id) });
  return ok({});
}
