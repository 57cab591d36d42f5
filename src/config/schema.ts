/**
 * `obsync.yaml` (DESIGN §3). Strict objects: a typo in a key is an error, not a silent default.
 * String values may use `${env:NAME}` / `${file:PATH}` (resolved by the loader before this
 * schema runs). Credentials may be left out here and given by the environment instead.
 */
import * as z from 'zod';

const nonEmpty = z.string().min(1);

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
};

export const selfHostedTargetConfig = z.strictObject({
  ...common,
  variant: z.literal('self-hosted'),
  baseUrl: z.url({ protocol: /^https?$/ }),
  credentials: z.strictObject({ apiKey: nonEmpty.optional() }).optional(),
});

export const hostedTargetConfig = z.strictObject({
  ...common,
  variant: z.literal('hosted'),
  baseUrl: z.url({ protocol: /^https?$/ }),
  organizationId: z.uuid(),
  serviceId: z.uuid(),
  credentials: z.strictObject({ keyId: nonEmpty.optional(), keySecret: nonEmpty.optional() }).optional(),
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

/** How long a writer lease lives without renewal (a dead writer is replaced after at most this). */
const leaseSeconds = z.number().min(2).max(600).optional();

/** The default: a directory (relative to obsync.yaml). */
export const fileStateConfig = z.strictObject({
  backend: z.literal('file').default('file'),
  path: nonEmpty.default('.obsync/state'),
  leaseSeconds,
});

/**
 * PostgreSQL, for CI runners and daemon replicas: `url` usually `${env:OBSYNC_STATE_URL}` (the
 * variable also overrides it). `path` is the file state that `obsync state migrate` copies from or to.
 */
export const postgresStateConfig = z.strictObject({
  backend: z.literal('postgres'),
  url: nonEmpty,
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a schema name is lowercase letters, digits and "_" (at most 63), not starting with a digit')
    .default('obsync'),
  leaseSeconds,
  path: nonEmpty.optional(),
});

export const stateConfig = z.discriminatedUnion('backend', [postgresStateConfig, fileStateConfig]);
export type StateConfig = z.infer<typeof stateConfig>;

export const configSchema = z.strictObject({
  apiVersion: z.literal('obsync/v1'),
  kind: z.literal('Config'),
  /** Manifest paths, relative to the config file. */
  manifests: z.array(nonEmpty).min(1).optional(),
  state: stateConfig.optional(),
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
