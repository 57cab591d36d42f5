/** The composed ports of the access kinds (./team.ts), typed by the kind's live schema like every collection. */
import type * as z from 'zod';
import { ApiError, CapabilityError } from '../core/errors.js';
import type { LiveObject } from '../core/live.js';
import type { CollectionPort, KindRoutes } from '../core/ports.js';
import type { Api } from './api.js';
import { collectionPort } from './collection.js';
import { teamPorts } from './team.js';

export type TeamPorts = ReturnType<typeof teamPorts>;

export function composedPort(
  which: NonNullable<KindRoutes['port']>,
  api: Api,
  root: string,
  target: string,
  shared: { ports?: TeamPorts },
  live: z.ZodType<LiveObject>,
): CollectionPort<LiveObject> {
  const ports = (shared.ports ??= teamPorts(api, root, target));
  if (which === 'roles')
    return customRoles(collectionPort(api, root, { api: 'observability', path: 'roles', paging: 'none', update: 'PUT' }, live), target);
  return parsed(which === 'team-members' ? ports.members : ports.settings, live);
}

/** Each object through the kind's live schema, as the generic collections parse theirs. */
function parsed(port: CollectionPort<{ id: string }>, live: z.ZodType<LiveObject>): CollectionPort<LiveObject> {
  const one = (x: unknown) => live.parse(x);
  return {
    list: async (o) => (await port.list(o)).map(one),
    get: async (id, o) => {
      const found = await port.get(id, o);
      return found === null ? null : one(found);
    },
    create: async (body, o) => one(await port.create(body, o)),
    update: async (id, body, o) => one(await port.update(id, body, o)),
    delete: (id, o) => port.delete(id, o),
    call: (name, id, body, o) => port.call(name, id, body, o),
    waitUntil: async (id, _done, o) => {
      const found = await port.get(id, o);
      return found === null ? null : one(found);
    },
  };
}

/** Custom roles only (the predefined ones are named, never managed); open-source HyperDX has no `/roles`. */
function customRoles(port: CollectionPort<LiveObject>, target: string): CollectionPort<LiveObject> {
  const custom = (r: LiveObject) => (r as { isPredefined?: unknown }).isPredefined !== true;
  return {
    ...port,
    async list(o) {
      try {
        return (await port.list(o)).filter(custom);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404)
          throw new CapabilityError(
            target,
            'self-hosted',
            'Role objects: it has no RBAC (open-source HyperDX)',
            'roles need ClickStack with RBAC; remove the Role manifests of this target',
          );
        throw err;
      }
    },
  };
}
