/**
 * The plan's floor: the CPU to merely parse and validate the responses a plan received. Fetches
 * the same GETs again (same paths and queries), then times JSON.parse, the variant's envelope and
 * the kind's live schema of every item, as the client does, without any planning.
 *
 * Which schema parses which path comes from the kinds' own routes (src/kinds/registry.ts), so a
 * new kind or a moved route needs nothing here.
 */
import type * as z from 'zod';
import type { Target } from '../src/core/target.js';
import type { KindDefinition } from '../src/kinds/kind.js';
import { REGISTRY } from '../src/kinds/registry.js';
import { hostedEnvelope, hostedRoots } from '../src/remote/hosted.js';
import { selfHostedEnvelope, selfHostedRoots } from '../src/remote/selfhosted.js';
import type { LoggedRequest } from '../src/sandbox/http/server.js';
import { fastest } from './measure.js';

/** Each kind's list path on this target, and the schema its items are parsed with. */
export function listSchemas(target: Target): Map<string, z.ZodType> {
  const roots = target.variant === 'hosted' ? hostedRoots(target) : selfHostedRoots();
  const out = new Map<string, z.ZodType>();
  for (const def of REGISTRY as readonly KindDefinition[]) {
    const routes = def.routes[target.variant];
    const root = routes ? roots[routes.api] : null;
    if (!routes || root === null) continue;
    out.set(routes.path === '' ? root : `${root}/${routes.path}`, def.live);
  }
  return out;
}

export async function parseFloorCpuMs(target: Target, url: string, log: readonly LoggedRequest[], samples: number): Promise<number> {
  const authorization =
    target.variant === 'hosted'
      ? `Basic ${Buffer.from(`${target.keyId}:${target.keySecret.reveal()}`).toString('base64')}`
      : `Bearer ${target.apiKey.reveal()}`;
  const envelope = target.variant === 'hosted' ? hostedEnvelope(target.paths) : selfHostedEnvelope;
  const schemas = listSchemas(target);
  const bodies: { text: string; item: z.ZodType }[] = [];
  for (const r of log) {
    if (r.method !== 'GET') continue;
    const item = schemas.get(r.path.replace(/\/$/, ''));
    if (!item) throw new Error(`bench: no kind lists ${r.path} (the plan read a path no kind's routes declare)`);
    bodies.push({ text: await (await fetch(`${url}${r.path}${r.search}`, { headers: { authorization } })).text(), item });
  }
  const once = () => {
    const t0 = process.cpuUsage();
    for (const { text, item } of bodies) {
      const payload = envelope.unwrap(JSON.parse(text));
      if (!Array.isArray(payload)) throw new Error('bench: expected a list');
      for (const raw of payload) item.parse(raw);
    }
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000;
  };
  once(); // warm-up, like the plan's
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    global.gc?.();
    times.push(once());
  }
  return fastest(times);
}
