/**
 * The plan's floor: the CPU to merely parse and validate the responses a plan received. Fetches
 * the same GETs again (same paths and queries), then times JSON.parse, the envelope and the
 * wire schema of every item, as the client does, without any planning.
 */
import type * as z from 'zod';
import type { Target } from '../src/core/target.js';
import { wireAlert, wireDashboard, wireSavedSearch, wireSource, wireWebhook } from '../src/core/wire.js';
import type { LoggedRequest } from '../src/sandbox/http/server.js';

const ITEM_SCHEMAS: [RegExp, z.ZodType][] = [
  [/\/dashboards$/, wireDashboard],
  [/\/alerts$/, wireAlert],
  [/\/sources$/, wireSource],
  [/\/webhooks$/, wireWebhook],
  [/\/saved-searches$/, wireSavedSearch],
];

export async function parseFloorCpuMs(target: Target, url: string, log: readonly LoggedRequest[]): Promise<number> {
  const authorization =
    target.variant === 'hosted'
      ? `Basic ${Buffer.from(`${target.keyId}:${target.keySecret.reveal()}`).toString('base64')}`
      : `Bearer ${target.apiKey.reveal()}`;
  const bodies: { text: string; item: z.ZodType }[] = [];
  for (const r of log) {
    if (r.method !== 'GET') continue;
    const item = ITEM_SCHEMAS.find(([pattern]) => pattern.test(r.path))?.[1];
    if (!item) throw new Error(`bench: no wire schema for ${r.path}`);
    bodies.push({ text: await (await fetch(`${url}${r.path}${r.search}`, { headers: { authorization } })).text(), item });
  }
  const once = () => {
    const t0 = process.cpuUsage();
    for (const { text, item } of bodies) {
      const body = JSON.parse(text) as { data?: unknown; result?: unknown };
      const payload = target.variant === 'hosted' ? body.result : body.data;
      if (!Array.isArray(payload)) throw new Error('bench: expected a list');
      for (const raw of payload) item.parse(raw);
    }
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000;
  };
  once(); // warm-up, like the plan's
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    global.gc?.();
    samples.push(once());
  }
  return fastest(samples);
}

/** Samples per CPU figure; both sides of a ratio take the same number. */
export const SAMPLES = 5;

/** On a shared machine noise only ever adds CPU time, so the fastest sample is the best estimate. */
export function fastest(xs: readonly number[]): number {
  return Math.min(...xs);
}
