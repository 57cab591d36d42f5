/**
 * The PipeSshKey manifest spec: an SSH key resource of a hosted service, which ClickPipes use to
 * tunnel through a bastion (terraform-provider-clickhouse resource/clickpipe_ssh_key.go). The
 * service makes the key pair and keeps the private half; a manifest holds no key at all. Every
 * field is fixed once the key exists (the API has no update).
 */
import * as z from 'zod';
import type { PipeSshKeySpecView } from './model.js';

const FIXED = 'Fixed once the key exists (the API has no update): a change is reported, not applied.';

export const pipeSshKeySpecSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(255)
      .describe(`Name of the SSH key resource on the service, unique per service; how an existing one is adopted. ${FIXED}`),
    description: z.string().max(255).optional().describe(`Description, at most 255 characters. Left out: none. ${FIXED}`),
    host: z.string().min(1).describe(`Host name or IP address of the SSH bastion. ${FIXED}`),
    port: z.number().int().min(1).max(65535).optional().describe(`Port of the SSH bastion (1-65535). Default: 22. ${FIXED}`),
    username: z.string().min(1).describe(`User ClickPipes log in as on the bastion. ${FIXED}`),
  })
  .meta({
    id: 'PipeSshKeySpec',
    description:
      'An SSH key resource of a hosted service (ClickPipes reach a database or broker through the bastion with it). The service ' +
      'makes the key pair: the public key is shown by export, the private key never leaves the service.',
  });

export type PipeSshKeySpec = z.output<typeof pipeSshKeySpecSchema>;
// The definition (./definition.ts) reads specs through PipeSshKeySpecView: keep the schema assignable.
const _assignable: (s: PipeSshKeySpec) => PipeSshKeySpecView = (s) => s;
void _assignable;
