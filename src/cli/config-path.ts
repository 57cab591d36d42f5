/** Which obsync.yaml a command uses, found before the command runs (its `.env` is read beside it). */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliIO } from './io.js';

/** `--config`, else the obsync.yaml of the single PATH given when it is a folder that has one, else ./obsync.yaml when there. */
export function configInUse(cwd: string, paths: readonly string[], flag: string | undefined): string | undefined {
  if (flag) return resolve(cwd, flag);
  const [only, ...rest] = paths;
  if (only && rest.length === 0) {
    const dir = resolve(cwd, only);
    if (existsSync(dir) && statSync(dir).isDirectory() && existsSync(join(dir, 'obsync.yaml'))) return join(dir, 'obsync.yaml');
  }
  const here = join(cwd, 'obsync.yaml');
  return existsSync(here) ? here : undefined;
}

/** `--config`, else `obsync.yaml` in the single directory given, else in the working directory. */
export function findConfig(io: CliIO, paths: readonly string[], flag: string | undefined): string | undefined {
  return configInUse(io.cwd, paths, flag);
}
