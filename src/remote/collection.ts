/**
 * One generic port per kind, built from the routes its definition declares (src/kinds): the
 * variant only says where each API is rooted and how its bodies are enveloped.
 */
import * as z from 'zod';
import type { CallOptions, CollectionPort, KindRoutes } from '../core/ports.js';
import type { JsonObject } from '../core/wire.js';
import type { Api } from './api.js';
import { defaultSleep } from './pacing.js';
import { below, literalPath } from './paths.js';

const anything = z.unknown();

export function collectionPort<T extends { id: string }>(
  api: Api,
  root: string,
  routes: KindRoutes,
  schema: z.ZodType<T>,
): CollectionPort<T> {
  const base = root + literalPath(routes.path);
  const one = (id: string) => below(base, id);
  const listed = (o?: CallOptions) => (routes.paging === 'offset' ? api.listAll(base, schema, o) : api.list(base, schema, o));
  const again = routes.readAgain;
  const list = again ? async (o?: CallOptions) => completeItems(await listed(o), again, (id) => api.find(one(id), schema, o)) : listed;
  // Without a GET by id, one object is found in a fresh read of the list.
  const get =
    routes.read === 'list'
      ? async (id: string, o?: CallOptions) => (await list(o)).find((x) => x.id === id) ?? null
      : (id: string, o?: CallOptions) => api.find(one(id), schema, o);
  return {
    list,
    get,
    create: (body: JsonObject, o) => api.call({ method: 'POST', path: base, body, signal: o?.signal, expected: o?.expected }, schema),
    update: (id, body, o) =>
      api.call({ method: routes.update ?? 'PUT', path: one(id), body, signal: o?.signal, expected: o?.expected }, schema),
    delete: (id, o) => api.remove(one(id), o),
    async call(name, id, body, o) {
      const call = routes.calls?.[name];
      if (!call) throw new Error(`no call '${name}' on ${base}`);
      await api.call(
        {
          method: call.method,
          path: one(id) + literalPath(call.path),
          body,
          idempotent: call.idempotent,
          signal: o?.signal,
          expected: o?.expected,
        },
        anything,
      );
    },
    waitUntil: (id, done, o) => waitUntil(() => get(id, o), done, o),
  };
}

/** Items matching `again` replaced by their GET by id, a few at a time (one gone meanwhile is left out). */
async function completeItems<T extends { id: string }>(
  items: T[],
  again: { field: string; equals: string },
  read: (id: string) => Promise<T | null>,
): Promise<T[]> {
  const isPartial = (item: T) => (item as Record<string, unknown>)[again.field] === again.equals;
  const reread = new Map<string, T | null>();
  const todo = items.filter(isPartial);
  for (let start = 0; start < todo.length; start += 8) {
    const batch = todo.slice(start, start + 8);
    const read8 = await Promise.all(batch.map((item) => read(item.id)));
    batch.forEach((item, i) => reread.set(item.id, read8[i] ?? null));
  }
  return items.flatMap((item) => {
    if (!isPartial(item)) return [item];
    const fresh = reread.get(item.id);
    return fresh ? [fresh] : [];
  });
}

/** Polls with back-off (0.25 s, ×1.5, at most 10 s apart) until `done` or the timeout (default 120 s). */
async function waitUntil<T>(
  read: () => Promise<T | null>,
  done: (live: T) => boolean,
  opts?: CallOptions & { timeoutMs?: number },
): Promise<T | null> {
  const deadline = Date.now() + (opts?.timeoutMs ?? 120_000);
  let delay = 250;
  for (;;) {
    const live = await read();
    if (live === null || done(live) || Date.now() + delay > deadline) return live;
    await defaultSleep(delay, opts?.signal);
    delay = Math.min(delay * 1.5, 10_000);
  }
}
