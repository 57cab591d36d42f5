/** Which state backend a command opens, from the environment (OBSYNC_STATE_URL, OBSYNC_STATE_DIR) and obsync.yaml's `state`. */
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { Secret } from '../core/secret.js';
import type { StateSpec } from '../inventory/open.js';
import type { ObsyncConfig } from '../config/schema.js';
import { STATE_SCHEMA_NAME, STATE_SCHEMA_RULE } from '../config/state-schema-name.js';
import { stateDirectory } from '../config/file-scope.js';
import { readRegularFile, unreadableReason } from '../manifests/files.js';
import type { CliIO } from './io.js';

/**
 * Which state backend (DESIGN §3 precedence): OBSYNC_STATE_URL (or OBSYNC_STATE_URL_FILE) selects
 * PostgreSQL over obsync.yaml's `state`; otherwise obsync.yaml, else the file backend.
 */
export function stateSpec(io: CliIO, config: ObsyncConfig | undefined, baseDir: string): StateSpec {
  const configured = config?.state;
  const leaseSeconds = configured?.leaseSeconds;
  const url = stateUrlFromEnv(io) ?? (configured?.backend === 'postgres' ? Secret.connection(configured.url) : undefined);
  if (url) {
    const schema = stateSchemaFromEnv(io) ?? (configured?.backend === 'postgres' ? configured.schema : 'obsync');
    return { backend: 'postgres', url, schema, leaseSeconds };
  }
  return { backend: 'file', dir: fileStateDir(io, config, baseDir), leaseSeconds };
}

/** The file backend's directory: OBSYNC_STATE_DIR, else state.path of obsync.yaml, else .obsync/state. */
export function fileStateDir(io: CliIO, config: ObsyncConfig | undefined, baseDir: string): string {
  return stateDirectory({ env: io.env, cwd: io.cwd, statePath: config?.state?.path, baseDir });
}

/** OBSYNC_STATE_SCHEMA, held to the rule state.schema follows in obsync.yaml. */
function stateSchemaFromEnv(io: CliIO): string | undefined {
  const schema = io.env.OBSYNC_STATE_SCHEMA;
  // Empty is unset, as for the other OBSYNC_* variables (a CI template that fills in nothing).
  if (!schema) return undefined;
  if (!STATE_SCHEMA_NAME.test(schema))
    throw new ConfigError(`OBSYNC_STATE_SCHEMA ${JSON.stringify(schema)} is not a schema name obsync uses: ${STATE_SCHEMA_RULE}`, {
      hint: 'set it to a plain name such as obsync or obsync_prod (or unset it to use state.schema of obsync.yaml, default obsync)',
    });
  return schema;
}

function stateUrlFromEnv(io: CliIO): Secret | undefined {
  const file = io.env.OBSYNC_STATE_URL_FILE;
  if (file) {
    try {
      return Secret.connection(readRegularFile(resolve(io.cwd, file)).trim());
    } catch (err) {
      throw new ConfigError(`OBSYNC_STATE_URL_FILE points to ${file}, which cannot be read: ${unreadableReason(err)}`, {
        hint: 'point it at a regular file holding the connection URL (a mounted secret), of at most 1 MiB',
        cause: err,
      });
    }
  }
  return io.env.OBSYNC_STATE_URL ? Secret.connection(io.env.OBSYNC_STATE_URL) : undefined;
}
