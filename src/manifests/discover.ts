/**
 * Finds every `.yaml`/`.yml` file below the given paths, sorted so every run reads them in the
 * same order. Symbolic links are followed — manifests mounted from a Kubernetes ConfigMap
 * (`file -> ..data/file`) or swapped in by git-sync are links — and each file is read once,
 * however many links lead to it; a directory reached again (a link loop) is not walked twice.
 *
 * Discovery fails closed (Trust rule): an entry that may hold manifests and cannot be read — a
 * broken link, a FIFO, socket or device named like a manifest, a folder that cannot be listed —
 * is an error, as an invalid file is: skipped, it would make what it declared look deleted, and
 * prune would delete it. Only a broken link whose name says it is something else (`README.md`)
 * is a warning. The lock, swap and backup files editors keep beside a manifest (an emacs lock is
 * a link that never resolves) are skipped by name (./editor-files.ts).
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { extname, join } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import { isEditorScratch } from './editor-files.js';
import { kindOf, type FileType } from './files.js';

const YAML_FILE = /\.ya?ml$/i;
/** Hidden folders (.git, .obsync, a ConfigMap's ..data and ..2024_… copies) and dependencies never hold manifests to read. */
const SKIPPED_DIR = (name: string) => name.startsWith('.') || name === 'node_modules';
/** Until fixed, nothing is applied or pruned: said once in every such error. */
const BLOCKS = 'nothing is applied or pruned until it can be read';

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
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return this.#error('io', p, `cannot read the manifest path ${p} (${code ?? String(e)}); ${BLOCKS}`);
      const link = isLink(p) ? ' (a symbolic link to a missing target)' : '';
      this.diagnostics.push({ severity: 'error', code: 'missing-path', message: `manifest path ${p} does not exist${link}`, file: p });
      return;
    }
    if (stat.isDirectory()) this.#walk(p);
    else if (YAML_FILE.test(p)) this.#manifest(p, stat);
    else this.diagnostics.push({ severity: 'error', code: 'not-yaml', message: `${p} is not a .yaml/.yml file`, file: p });
  }

  /** A manifest found: read later if it is a regular file, an error otherwise (a FIFO would block, a device never end). */
  #manifest(path: string, type: FileType): void {
    if (!type.isFile())
      return this.#error('not-regular', path, `cannot read ${path}: it is ${kindOf(type)}, not a regular file; ${BLOCKS}`);
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
      return this.#error('io', dir, `cannot read the folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}; ${BLOCKS}`);
    }
    for (const entry of entries) {
      if (isEditorScratch(entry.name)) continue;
      const full = join(dir, entry.name);
      const type = entry.isSymbolicLink() || !knownType(entry) ? this.#followed(full, entry.name) : entry;
      if (type === null) continue;
      if (type.isDirectory()) {
        if (!SKIPPED_DIR(entry.name)) this.#walk(full);
      } else if (YAML_FILE.test(entry.name)) this.#manifest(full, type);
    }
  }

  /**
   * What a link (or an entry whose type the file system did not say) points at. One that cannot be
   * followed is an error when it may hold manifests: named .yaml/.yml, or without an extension (a
   * folder); `README.md -> gone` is only a warning.
   */
  #followed(path: string, name: string): Stats | null {
    try {
      return statSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      const target = linkTarget(path);
      const what =
        target === undefined
          ? `(${code})`
          : code === 'ENOENT'
            ? `a symbolic link to ${target}, which does not exist`
            : `a symbolic link to ${target} (${code})`;
      const mayHoldManifests = YAML_FILE.test(name) || (target !== undefined && YAML_FILE.test(target)) || extname(name) === '';
      if (mayHoldManifests) this.#error('broken-link', path, `cannot read ${path}: ${what}; fix or remove the link — ${BLOCKS}`);
      else this.diagnostics.push({ severity: 'warning', code: 'broken-link', message: `skipped ${path}: ${what}`, file: path });
      return null;
    }
  }

  #error(code: string, file: string, message: string): void {
    this.diagnostics.push({ severity: 'error', code, message, file });
  }
}

/** Whether the directory entry says what it is (some file systems leave it unknown: then it is stat-ed). */
function knownType(entry: Dirent): boolean {
  return (
    entry.isFile() ||
    entry.isDirectory() ||
    entry.isSymbolicLink() ||
    entry.isFIFO() ||
    entry.isSocket() ||
    entry.isCharacterDevice() ||
    entry.isBlockDevice()
  );
}

function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
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
