/** obsync.yaml's `state`: the file or PostgreSQL inventory backend and its writer lease. */
import * as z from 'zod';
import { STATE_SCHEMA_NAME, STATE_SCHEMA_RULE } from './state-schema-name.js';
import { POSTGRES_URL, urlSetting } from './url-setting.js';

const nonEmpty = z.string().min(1);

/** How long a writer lease lives without renewal (a dead writer is replaced after at most this). */
const leaseSeconds = z
  .number()
  .min(2)
  .max(600)
  .optional()
  .describe(
    'How long a writer lease lives without renewal, in seconds (2-600, default 30): a writer that died is replaced after at most this.',
  );

/** The default: a directory (relative to obsync.yaml). */
export const fileStateConfig = z
  .strictObject({
    backend: z.literal('file').default('file').describe('file (the default): a directory next to obsync.yaml.'),
    path: nonEmpty
      .default('.obsync/state')
      .describe(
        'Directory of the state (inventory, lease, backups), relative to this file (default .obsync/state; OBSYNC_STATE_DIR ' +
          'overrides it). Keep it out of Git.',
      ),
    leaseSeconds,
  })
  .meta({ id: 'FileState', description: 'State in a local directory (the default).' });

/**
 * PostgreSQL, for CI runners and daemon replicas: `url` usually `${env:OBSYNC_STATE_URL}` (the
 * variable also overrides it). `path` is the file state that `obsync state migrate` copies from or to.
 */
export const postgresStateConfig = z
  .strictObject({
    backend: z.literal('postgres').describe('postgres: a PostgreSQL database, shared by CI runs and daemon replicas.'),
    url: urlSetting('the state URL', POSTGRES_URL, '"${env:OBSYNC_STATE_URL}"').meta({
      sensitive: true,
      description:
        'Connection URL, usually "${env:OBSYNC_STATE_URL}" (the variable, or OBSYNC_STATE_URL_FILE, also overrides it). Sensitive: ' +
        'its password is never printed.',
    }),
    schema: z
      .string()
      .regex(STATE_SCHEMA_NAME, STATE_SCHEMA_RULE)
      .default('obsync')
      .describe('PostgreSQL schema of the tables, created and migrated on first use (default obsync; OBSYNC_STATE_SCHEMA overrides it).'),
    leaseSeconds,
    path: nonEmpty.optional().describe('The file state directory that `obsync state migrate` copies from or to (default .obsync/state).'),
  })
  .meta({
    id: 'PostgresState',
    description: 'State in PostgreSQL: inventory, pending creates, fingerprint key, backups and leases in one database.',
  });

export const stateConfig = z
  .discriminatedUnion('backend', [postgresStateConfig, fileStateConfig])
  .meta({ id: 'State', description: 'Where obsync keeps what it owns (the inventory), its writer lease and backups.' });

export type StateConfig = z.infer<typeof stateConfig>;
