/**
 * A live SSH key resource as a manifest (obsync export): the fields a user chose, with the
 * service's defaults left out. Its status and public key are what a reader acts on (install the
 * key on the bastion, then validate it), so they go into the export's notes, not the spec.
 */
import type { JsonObject } from '../../core/wire.js';
import type { ExportContext } from '../kind.js';
import { DEFAULT_PORT, type PipeSshKeyLive } from './model.js';

export function pipeSshKeyToManifest(live: PipeSshKeyLive, ctx: ExportContext): JsonObject {
  const spec: JsonObject = { name: live.name };
  if (live.description) spec.description = live.description;
  spec.host = live.host;
  if (live.port != null && live.port !== DEFAULT_PORT) spec.port = live.port;
  spec.username = live.username;
  ctx.note(statusNote(live));
  if (live.publicKey) ctx.note(`public key to add to the bastion's authorized_keys: ${live.publicKey}`);
  return spec;
}

/** `status: failed (could not connect …)`: the status the service reports, with its message when it has one. */
export function statusNote(live: PipeSshKeyLive): string {
  const status = live.status ?? 'unknown';
  const detail = live.statusMessage ? ` (${live.statusMessage})` : '';
  const when = live.lastValidatedAt ? `, last validated ${live.lastValidatedAt}` : ', not validated yet';
  return `status: ${status}${detail}${when}`;
}
