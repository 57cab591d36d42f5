/**
 * How a user runs this very obsync from a shell, for the commands obsync prints (init's "Next:").
 * `obsync` only when the first `obsync` on PATH is this program (an installed package: npm's bin
 * link leads to this file); otherwise the full `node …/main.js`, which works from any directory —
 * `npx obsync` outside a clone asks the public registry for an unrelated package.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This program's entry point (dist/cli/main.js). */
const ENTRY = fileURLToPath(new URL('./main.js', import.meta.url));

export interface Invocation {
  /** What to type before the command's own words, e.g. `obsync` or `node /opt/obsync/dist/cli/main.js`. */
  command: string;
  /** `obsync` on PATH is this program. */
  onPath: boolean;
  /** Another program is the first `obsync` on PATH. */
  shadowed?: boolean;
}

export function obsyncInvocation(env: Readonly<Record<string, string | undefined>>, entry: string = ENTRY): Invocation {
  const self = realOrSelf(entry);
  const found = firstOnPath('obsync', env.PATH ?? '');
  if (found !== undefined && realOrSelf(found) === self) return { command: 'obsync', onPath: true };
  return { command: `node ${shellWord(self)}`, onPath: false, ...(found !== undefined ? { shadowed: true } : {}) };
}

function firstOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A word the shell reads back as `text` (quoted only when it needs to be). */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
