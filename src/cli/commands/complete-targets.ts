/**
 * `obsync __targets -- WORDS…` (hidden): the target names a shell completion offers after
 * `--target`, one per line, from the obsync.yaml the command line being completed would use
 * (`--config FILE`, else one in a directory argument, else ./obsync.yaml). Read as plain YAML,
 * without interpolation, credentials or network; silent on any problem (a completion must not
 * print errors into the user's prompt).
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { readRegularFile } from '../../manifests/files.js';
import type { CommandRegistrar } from '../registrar.js';

export const COMPLETE_TARGETS = '__targets';

export const register: CommandRegistrar = (program, io) => {
  program
    .command(COMPLETE_TARGETS, { hidden: true })
    .description('target names for shell completion (used by the completion scripts)')
    .argument('[words...]', 'the words of the command line being completed')
    .action((words: string[]) => {
      const names = targetNames(configFor(io.cwd, words));
      io.stdout.write(names.map((n) => `${n}\n`).join(''));
    });
};

function configFor(cwd: string, words: readonly string[]): string | undefined {
  const flag = words.findIndex((w) => w === '--config' || w.startsWith('--config='));
  if (flag >= 0) {
    const word = words[flag] ?? '';
    const value = word.includes('=') ? word.slice(word.indexOf('=') + 1) : words[flag + 1];
    return value ? resolve(cwd, value) : undefined;
  }
  for (const word of words.slice(1)) {
    if (word.startsWith('-')) continue;
    const dir = resolve(cwd, word);
    if (existsSync(join(dir, 'obsync.yaml')) && statSync(dir).isDirectory()) return join(dir, 'obsync.yaml');
  }
  const here = join(cwd, 'obsync.yaml');
  return existsSync(here) ? here : undefined;
}

/** The declared targets' names; `sandbox` (the embedded target, always accepted) when none is declared. */
function targetNames(path: string | undefined): string[] {
  if (path === undefined) return ['sandbox'];
  try {
    const doc: unknown = parseDocument(readRegularFile(path), { merge: true }).toJS({ maxAliasCount: 10 });
    const targets = typeof doc === 'object' && doc !== null ? (doc as { targets?: unknown }).targets : undefined;
    const names = Array.isArray(targets)
      ? targets.flatMap((t: unknown) => {
          const name = typeof t === 'object' && t !== null ? (t as { name?: unknown }).name : undefined;
          return typeof name === 'string' && /^[A-Za-z0-9_.-]+$/.test(name) ? [name] : [];
        })
      : [];
    return names.length > 0 ? names : ['sandbox'];
  } catch {
    return [];
  }
}
