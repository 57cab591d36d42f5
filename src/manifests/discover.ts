/**
 * Finds every `.yaml`/`.yml` file below the given paths, sorted so every run reads them in the
 * same order. Symbolic links are followed — manifests mounted from a Kubernetes ConfigMap
 * (`file -> ..data/file`) or swapped in by git-sync are links — and each file is read once,
 * however many links lead to it; a directory reached again (a link loop) is not walked twice.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';

const YAML_FILE = /\.ya?ml$/i;
/** Hidden folders (.git, .obsync, a ConfigMap's ..data and ..2024_… copies) and dependencies never hold manifests to read. */
const SKIPPED_DIR = (name: string) => name.startsWith('.') || name === 'node_modules';

export interface Discovered {
  /** As the user sees them (through the links), sorted. */
  files: string[];
  diagnostics: Diagnostic[];
}

export function discoverFiles(paths: readonly string[]): Discovered {
  const walker = new Walker();
  for (const p of paths) walker.root(p);
  return { files: [...walker.files.values()].sort(), diagnostics: walker.diagnostics };
}

class Walker {
  /** Real path → the path it was first found by. */
  readonly files = new Map<string, string>();
  readonly diagnostics: Diagnostic[] = [];
  readonly #walked = new Set<string>();

  root(p: string): void {
    let stat: Stats;
    try {
      stat = statSync(p);
    } catch {
      const link = isLink(p) ? ' (a symbolic link to a missing target)' : '';
      this.diagnostics.push({ severity: 'error', code: 'missing-path', message: `manifest path ${p} does not exist${link}`, file: p });
      return;
    }
    if (stat.isDirectory()) this.#walk(p);
    else if (YAML_FILE.test(p)) this.#add(p);
    else this.diagnostics.push({ severity: 'error', code: 'not-yaml', message: `${p} is not a .yaml/.yml file`, file: p });
  }

  #add(path: string): void {
    const real = realOrNull(path) ?? path;
    if (!this.files.has(real)) this.files.set(real, path);
  }

  #walk(dir: string): void {
    const real = realOrNull(dir);
    if (real === null || this.#walked.has(real)) return;
    this.#walked.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (e) {
      this.diagnostics.push({
        severity: 'error',
        code: 'io',
        message: `cannot read the folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
        file: dir,
      });
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      const type = entry.isSymbolicLink() ? this.#followed(full) : entry;
      if (type === null) continue;
      if (type.isDirectory()) {
        if (!SKIPPED_DIR(entry.name)) this.#walk(full);
      } else if (type.isFile() && YAML_FILE.test(entry.name)) this.#add(full);
    }
  }

  /** What a link points at; a dangling link to a manifest is reported (a half-swapped mount), others ignored. */
  #followed(link: string): Stats | null {
    try {
      return statSync(link);
    } catch {
      if (YAML_FILE.test(link))
        this.diagnostics.push({
          severity: 'warning',
          code: 'broken-link',
          message: `skipped ${link}: a symbolic link to a missing file`,
          file: link,
        });
      return null;
    }
  }
}

function isLink(p: string): boolean {
  return lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}
