/**
 * `obsync.yaml` (DESIGN §3). Strict objects: a typo in a key is an error, not a silent default.
 * String values may use `${env:NAME}` / `${file:PATH}` (resolved by the loader before this
 * schema runs). Credentials may be left out here and given by the environment instead.
 */
import * as z from 'zod';

const nonEmpty = z.string().min(1);
/** A credential: `${env:OBSYNC_*}` credentials may be used here, and its value is never printed. */
const credential = nonEmpty.meta({ sensitive: true });

/** Names are used in file names (inventory, lock) and flags. */
export const targetName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a target name is lowercase letters, digits and "-" (at most 63)');

const rateLimit = z.strictObject({
  requests: z.number().int().positive(),
  perSeconds: z.number().positive(),
});

const common = {
  name: targetName,
  /** Requests in flight at once (default: defaults.concurrency). */
  concurrency: z.number().int().min(1).max(64).optional(),
  /** Per-request deadline. */
  timeoutSeconds: z.number().positive().max(600).optional(),
  /** Client-side pacing; defaults to the variant's published limit. */
  rateLimit: rateLimit.optional(),
  retries: z.number().int().min(0).max(10).optional(),
  /** The longest wait a server may ask for (Retry-After, rate-limit reset) before the request fails instead. */
  maxWaitSeconds: z.number().positive().max(3600).optional(),
  /** A request's total time over all its attempts and waits. */
  deadlineSeconds: z.number().positive().max(3600).optional(),
};

export const selfHostedTargetConfig = z.strictObject({
  ...common,
  variant: z.literal('self-hosted'),
  baseUrl: z.url({ protocol: /^https?$/ }),
  credentials: z.strictObject({ apiKey: credential.optional() }).optional(),
});

export const hostedTargetConfig = z.strictObject({
  ...common,
  variant: z.literal('hosted'),
  baseUrl: z.url({ protocol: /^https?$/ }),
  organizationId: z.uuid(),
  serviceId: z.uuid(),
  credentials: z.strictObject({ keyId: credential.optional(), keySecret: credential.optional() }).optional(),
  paths: z.strictObject({ observability: nonEmpty.optional(), pipes: nonEmpty.optional() }).optional(),
});

/** The embedded sandbox: an in-process simulator, data under `data` (default `.obsync/sandbox`). */
export const sandboxTargetConfig = z.strictObject({
  ...common,
  variant: z.literal('sandbox'),
  /** Which API the embedded sandbox speaks; hosted (the default) also manages pipes. */
  api: z.enum(['hosted', 'self-hosted']).optional(),
  data: nonEmpty.optional(),
});

export const targetConfig = z.discriminatedUnion('variant', [selfHostedTargetConfig, hostedTargetConfig, sandboxTargetConfig]);
export type TargetConfig = z.infer<typeof targetConfig>;

export const configSchema = z.strictObject({
  apiVersion: z.literal('obsync/v1'),
  kind: z.literal('Config'),
  /** Manifest paths, relative to the config file. */
  manifests: z.array(nonEmpty).min(1).optional(),
  /**
   * `${file:}` reads only below this file's directory unless allowed here: `true` (anywhere) or
   * a list of directories (relative to this file). Only a literal value counts.
   */
  allowFileOutside: z.union([z.boolean(), z.array(nonEmpty).min(1)]).optional(),
  state: z
    .strictObject({
      backend: z.literal('file').default('file'),
      path: nonEmpty.default('.obsync/state'),
    })
    .optional(),
  defaults: z
    .strictObject({
      target: targetName.optional(),
      schedule: nonEmpty.optional(),
      prune: z.boolean().optional(),
      concurrency: z.number().int().min(1).max(64).optional(),
      maxDeletes: z.number().int().min(0).optional(),
    })
    .optional(),
  targets: z.array(targetConfig).optional(),
});
export type ObsyncConfig = z.infer<typeof configSchema>;
