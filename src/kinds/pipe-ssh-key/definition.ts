/**
 * SSH key resources of a hosted service (`…/services/{id}/clickpipesSshKeyResources`;
 * terraform-provider-clickhouse internal/api/clickpipe_ssh_key.go). obsync creates, adopts (by
 * name, unique per service) and, with --prune, deletes the ones it owns. The service makes the
 * key pair: a create sends no key, and the live form keeps none (./model.ts). There is no update:
 * a changed field is shown in the plan with a note, and the apply reports it as not converging
 * rather than deleting a key a pipe may be using.
 */
import type { JsonObject } from '../../core/wire.js';
import type { ManagedKind } from '../kind.js';
import { pipeSshKeyToManifest, statusNote } from './export.js';
import { DEFAULT_PORT, pipeSshKeyLive, type PipeSshKeyLive, type PipeSshKeySpecView } from './model.js';
import { pipeSshKeySpecSchema } from './schema.js';

export const pipeSshKey: ManagedKind<'PipeSshKey', PipeSshKeySpecView, PipeSshKeyLive> = {
  kind: 'PipeSshKey',
  description:
    'An SSH key resource of a hosted service, for pipes that reach their source through an SSH bastion. The service makes the key ' +
    'pair (obsync never holds the private key); obsync creates, adopts and (with --prune) deletes it. Every field is fixed once it exists.',
  managed: true,
  noun: 'SSH key resource',
  refersTo: [],
  live: pipeSshKeyLive,
  routes: { hosted: { api: 'service', path: 'clickpipesSshKeyResources', paging: 'none' } },
  read: 'when-declared',
  displayName: (live) => live.name,
  // The service moves a key between pending, active and failed on its own (validation).
  volatile: ['status', 'statusMessage', 'lastValidatedAt', 'updatedAt'],
  spec: pipeSshKeySpecSchema,
  creatable: true,
  deletable: true,
  references: () => [],

  toManifest: pipeSshKeyToManifest,
  desiredKey: (res) => keyOf(res.spec.name),
  liveKey: (live) => keyOf(live.name),
  bodyKey: (body) => keyOf(typeof body.name === 'string' ? body.name : ''),

  canonicalDesired: (res) => ({ ok: true, value: fields(res.spec) }),

  canonicalLive: (live) =>
    fields({
      name: live.name,
      description: live.description ?? undefined,
      host: live.host,
      port: live.port ?? undefined,
      username: live.username,
    }),

  createPayload(res) {
    const body: JsonObject = { name: res.spec.name, host: res.spec.host, port: res.spec.port ?? DEFAULT_PORT, username: res.spec.username };
    if (res.spec.description !== undefined) body.description = res.spec.description;
    return body;
  },

  // Nothing can be sent: the apply re-reads the key and reports the fields that still differ.
  update: () => ({ calls: [], settle: false }),

  notes: (res, live) => [
    `an SSH key resource cannot change in place (the API has no update): to use other values, give the manifest a new ` +
      `metadata.name and spec.name (a new key is made; install its public key on the bastion), then prune ${res.spec.name}`,
    statusNote(live),
  ],
};

function keyOf(name: string): string {
  return `name:${name}`;
}

/** The fields compared, with the service's defaults (no description: '', no port: 22). */
function fields(spec: PipeSshKeySpecView): JsonObject {
  return {
    name: spec.name,
    description: spec.description ?? '',
    host: spec.host,
    port: spec.port ?? DEFAULT_PORT,
    username: spec.username,
  };
}
