/**
 * The service's objects as the API returns them, after the variant's envelope is removed.
 * Both variants share these shapes (the hosted observability API is the self-hosted one,
 * re-enveloped). Schemas are loose: fields we do not model pass through untouched, so an
 * object read here can be echoed back and newer servers do not break parsing.
 * Responses are parsed with these at the HTTP boundary (src/remote).
 */
import * as z from 'zod';

/** A part's id (a tile's, a filter's): data inside an object, never a path segment. */
const id = z.string().min(1);

/**
 * The id of an object the service lists (a dashboard, an alert, a pipe, a key...): obsync owns it,
 * records it and puts it in request paths, so its form is checked here, at the edge. Real ids are
 * 24-hex ObjectIds and UUIDs; this admits any short run of letters, digits and `. _ ~ : @ + = -`
 * that is not dots only — never `..` (a dot segment a front end resolves away), a slash, a
 * space, a control, bidi or zero-width character. A list holding another id is refused whole.
 */
export const OBJECT_ID_RULE = 'an id of 1 to 200 letters, digits and . _ ~ : @ + = - (not dots only)';
const OBJECT_ID = /^(?!\.+$)[A-Za-z0-9._~:@+=-]{1,200}$/;
export const objectId = z.string().regex(OBJECT_ID, { error: `not ${OBJECT_ID_RULE}` });

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * A JSON value (an object: a JSON object), checked where it is and kept as given. Not z.json():
 * its union tries each type in turn and copies every object and array, 19 KB of allocation per
 * dashboard (tile configs), 385 MB for a daemon's first read of 20,000 objects.
 */
export const json = z.custom<Json>((v) => validJson(v, 0), { error: 'expected a JSON value' });
export const jsonObject = z.custom<JsonObject>((v) => validJsonObject(v, 0), { error: 'expected a JSON object' });

/** Deeper than this is refused rather than risking the stack (no API object nests near it). */
const MAX_DEPTH = 256;

function validJson(v: unknown, depth: number): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) {
    if (depth >= MAX_DEPTH) return false;
    for (let i = 0; i < v.length; i++) if (!validJson(v[i], depth + 1)) return false;
    return true;
  }
  return validJsonObject(v, depth);
}

function validJsonObject(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null || depth >= MAX_DEPTH) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(v)) if (!validJson((v as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

export const wireTile = z.looseObject({
  id,
  name: z.string(),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  config: jsonObject,
  containerId: z.string().optional(),
  tabId: z.string().optional(),
});
export type WireTile = z.infer<typeof wireTile>;

export const wireFilter = z.looseObject({
  id,
  type: z.string(),
  name: z.string(),
  expression: z.string(),
  sourceId: z.string(),
});
export type WireFilter = z.infer<typeof wireFilter>;

export const wireDashboard = z.looseObject({
  id: objectId,
  name: z.string(),
  tiles: z.array(wireTile),
  tags: z.array(z.string()).default([]),
  filters: z.array(wireFilter).default([]),
  savedQuery: z.string().nullish(),
  savedQueryLanguage: z.string().nullish(),
  savedFilterValues: z.array(jsonObject).default([]),
  containers: z.array(jsonObject).optional(),
});
export type WireDashboard = z.infer<typeof wireDashboard>;

export const wireChannel = z.looseObject({ type: z.string() });

export const wireAlert = z.looseObject({
  id: objectId,
  source: z.string(),
  name: z.string().nullish(),
  message: z.string().nullish(),
  note: z.string().nullish(),
  threshold: z.number(),
  thresholdMax: z.number().nullish(),
  thresholdType: z.string(),
  interval: z.string(),
  scheduleOffsetMinutes: z.number().nullish(),
  scheduleStartAt: z.string().nullish(),
  numConsecutiveWindows: z.number().nullish(),
  state: z.string().optional(),
  channel: wireChannel.optional(),
  channels: z.array(wireChannel).optional(),
  dashboardId: z.string().nullish(),
  tileId: z.string().nullish(),
  savedSearchId: z.string().nullish(),
  groupBy: z.string().nullish(),
  /** Inline alerts: in single-alert answers only, and not when the API cannot express the chart. */
  chartConfig: jsonObject.nullish(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type WireAlert = z.infer<typeof wireAlert>;

export const wireSource = z.looseObject({ id: objectId, name: z.string(), kind: z.string() });
export type WireSource = z.infer<typeof wireSource>;

export const wireWebhook = z.looseObject({
  id: objectId,
  name: z.string(),
  service: z.string(),
  url: z.string().optional(),
  description: z.string().optional(),
});
export type WireWebhook = z.infer<typeof wireWebhook>;

export const wireSavedSearch = z.looseObject({ id: objectId, name: z.string(), sourceId: z.string().optional() });
export type WireSavedSearch = z.infer<typeof wireSavedSearch>;

/** Kubernetes quantity strings ("500m", "2Gi") have been seen in place of numbers (hosted reference §3.7). */
const quantity = z.union([z.number(), z.string()]);

export const wirePipeScaling = z.looseObject({
  replicas: quantity.nullish(),
  concurrency: quantity.nullish(),
  replicaCpuMillicores: quantity.nullish(),
  replicaMemoryGb: quantity.nullish(),
});
export type WirePipeScaling = z.infer<typeof wirePipeScaling>;

export const wirePipeSettings = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
export type WirePipeSettings = z.infer<typeof wirePipeSettings>;

export const wirePipe = z.looseObject({
  id: objectId,
  serviceId: z.string().optional(),
  name: z.string(),
  state: z.string(),
  scaling: wirePipeScaling.nullish(),
  source: z.record(z.string(), json.nullable()),
  destination: jsonObject.nullish(),
  fieldMappings: z.array(jsonObject).nullish(),
  settings: wirePipeSettings.nullish(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type WirePipe = z.infer<typeof wirePipe>;

export const wireApiKey = z.looseObject({
  id: objectId,
  name: z.string(),
  state: z.string(),
  roles: z.array(z.string()).nullish(),
  keySuffix: z.string().optional(),
  createdAt: z.string().optional(),
  expireAt: z.string().nullish(),
  usedAt: z.string().nullish(),
  ipAccessList: z.array(z.looseObject({ source: z.string(), description: z.string().optional() })).nullish(),
});
export type WireApiKey = z.infer<typeof wireApiKey>;

export const wireKeyCreated = z.looseObject({
  key: wireApiKey,
  keyId: z.string().optional(),
  keySecret: z.string().optional(),
});
export type WireKeyCreated = z.infer<typeof wireKeyCreated>;

export const wireDashboardValidation = z.looseObject({
  valid: z.boolean(),
  errors: z.array(z.looseObject({ path: z.string(), message: z.string() })),
  normalized: json.nullable().optional(),
});
export type WireDashboardValidation = z.infer<typeof wireDashboardValidation>;

/** One row of `POST /charts/series`; values come straight from ClickHouse JSON (64-bit counts are strings). */
export const wireSeriesRow = jsonObject;
export type WireSeriesRow = z.infer<typeof wireSeriesRow>;
