/**
 * `.env`: variables for `${env:…}` and obsync's own settings, read before a command runs — from
 * `./.env` in the working directory when it exists, or from `--dotenv FILE` (which must exist).
 * Precedence, as docker compose and the dotenv tools have it: a variable set in the environment
 * wins over the file; the file wins over obsync.yaml (it is environment). Node's own parser
 * (`KEY=value`, quotes, `#` comments, `export KEY=…`); the file is read like every other input:
 * a regular file of at most 1 MiB.
 */
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '../core/errors.js';
import { FileRefusal, readRegularFile } from '../manifests/files.js';
import { setOwn } from '../core/json.js';

export const DEFAULT_ENV_FILE = '.env';

/** The environment with the file's variables under it, or `env` itself when there is no file to read. */
export function withEnvFile(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  flag: string | undefined,
): Readonly<Record<string, string | undefined>> {
  const path = resolve(cwd, flag ?? DEFAULT_ENV_FILE);
  let text: string;
  try {
    text = readRegularFile(path);
  } catch (err) {
    if (flag === undefined && isMissing(err)) return env;
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`${flag === undefined ? DEFAULT_ENV_FILE : `--dotenv ${flag}`} cannot be read: ${reason}`, {
      hint: flag === undefined ? `fix or remove ${path}` : 'give a readable file of KEY=value lines',
      cause: err,
    });
  }
  const fromFile = parseEnv(text);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) setOwn(merged, name, value);
  return merged;
}

function isMissing(err: unknown): boolean {
  return !(err instanceof FileRefusal) && (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
