/** The parts of a PipeSshKey spec the definition reads (the schema in ./schema.ts is the full truth), and its live form. */
import * as z from 'zod';
import { objectId } from '../../core/wire.js';

export interface PipeSshKeySpecView {
  name: string;
  description?: string | undefined;
  host: string;
  port?: number | undefined;
  username: string;
}

/** The port the service gives a key made without one (resource/clickpipe_ssh_key.go: default 22). */
export const DEFAULT_PORT = 22;

/**
 * An SSH key resource as the service returns it (terraform-provider-clickhouse internal/api/clickpipe_ssh_key_models.go
 * `SSHKey`). A plain (stripping) object, not a loose one: whatever else an answer carries is dropped as it is parsed,
 * so a private key the service sent by mistake would never reach a plan, a state file, a log or an export.
 */
export const pipeSshKeyLive = z.object({
  id: objectId,
  name: z.string(),
  description: z.string().nullish(),
  host: z.string(),
  port: z.number().int().nullish(),
  username: z.string(),
  publicKey: z.string().nullish(),
  status: z.string().nullish(),
  statusMessage: z.string().nullish(),
  lastValidatedAt: z.string().nullish(),
});
export type PipeSshKeyLive = z.output<typeof pipeSshKeyLive>;
