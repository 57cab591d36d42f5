/**
 * `.env`: variables for `${env:…}` and obsync's own settings, read before a command runs — from
 * `.env` beside the obsync.yaml in use and `.env` in the working directory, each when it exists,
 * or from `--dotenv FILE` alone (which must exist). Precedence, as docker compose and the dotenv
 * tools have it: a variable set in the environment wins over the files, the working directory's
 * file over the config's (the nearer to the command wins); the files win over obsync.yaml (they
 * are environment). Node's own parser (`KEY=value`, quotes, `#` comments, `export KEY=…`); a file
 * is read like every other input: a regular file of at most 1 MiB.
 */
import { dirname, relative, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '../core/errors.js';
import { FileRefusal, readRegularFile } from '../manifests/files.js';
import { setOwn } from '../core/json.js';

export const DEFAULT_ENV_FILE = '.env';

/**
 * The environment with the files' variables under it, or `env` itself when there is no file to
 * read. `configPath`: the obsync.yaml the command uses, if any.
 */
export function withEnvFile(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  flag: string | undefined,
  configPath?: string,
): Readonly<Record<string, string | undefined>> {
  const files =
    flag !== undefined
      ? [resolve(cwd, flag)]
      : [...new Set([...(configPath ? [resolve(dirname(configPath), DEFAULT_ENV_FILE)] : []), resolve(cwd, DEFAULT_ENV_FILE)])];
  const read = files.map((path) => readEnvFile(path, cwd, flag)).filter((vars) => vars !== undefined);
  if (read.length === 0) return env;
  const merged: Record<string, string | undefined> = {};
  for (const vars of read) for (const [name, value] of Object.entries(vars)) setOwn(merged, name, value);
  for (const [name, value] of Object.entries(env)) if (value !== undefined) setOwn(merged, name, value);
  return merged;
}

/** A file's variables; undefined when a default `.env` is not there. */
function readEnvFile(path: string, cwd: string, flag: string | undefined): Record<string, string> | undefined {
  let text: string;
  try {
    text = readRegularFile(path);
  } catch (err) {
    if (flag === undefined && isMissing(err)) return undefined;
    const reason = err instanceof Error ? err.message : String(err);
    const name = flag === undefined ? relative(cwd, path) || path : `--dotenv ${flag}`;
    throw new ConfigError(`${name} cannot be read: ${reason}`, {
      hint: flag === undefined ? `fix or remove ${path}` : 'give a readable file of KEY=value lines',
      cause: err,
    });
  }
  return parseEnv(text) as Record<string, string>;
}

function isMissing(err: unknown): boolean {
  return !(err instanceof FileRefusal) && (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
