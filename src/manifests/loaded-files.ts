/**
 * The loads of unchanged files kept from one load to the next (targets and daemon runs that read the same
 * files), with the credential checks (trust invariant 5) each was checked by.
 */
import { sep } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import { sameItems } from '../core/collections.js';
import { deepFreeze } from '../core/freeze.js';
import { refuseCarried, type SensitiveValues } from './carried.js';
import type { crossCheck } from './cross-checks.js';
import type { LoadedDocument } from './document.js';
import type { FileLoad } from './file-load.js';
import type { FailedDocument } from './parse.js';

/**
 * The loads of files shared by every target (and, in the daemon, every run) that reads them. A
 * file without a `${...}` loads the same for any target and environment, so it is parsed and
 * validated again only when its text changed; a file that interpolates is loaded afresh each time.
 * What is kept holds no YAML tree (a tree costs some 60 times its text: a daemon of 20,000 objects
 * kept 520 MB of them) nor the text (a digest of it: the text of 20,000 objects is 8 MB the daemon
 * would carry from run to run), and a file gone from a path it was found under is forgotten.
 */
export class LoadedFiles {
  readonly #files = new Map<string, Kept>();
  #rechecks = 0;
  /** The last cross-document checks, a few (targets whose trees differ check different documents). */
  #crossChecks: CrossChecked[] = [];
  #crossChecksMade = 0;

  /** The kept load of the file, when its text (by its digest) is the one it was loaded from. */
  get(file: string, digest: string): Kept | undefined {
    const kept = this.#files.get(file);
    return kept?.digest === digest ? kept : undefined;
  }

  /** Keeps a load without its documents' values (what the check needed of them is in its checks). */
  keep(file: string, digest: string, load: FileLoad, against: string, check: CarriedCheck): void {
    const kept: Kept = { digest, load: deepFreeze({ ...load, guarded: [] }), checks: new Map() };
    addCheck(kept, against, deepFreeze(check));
    this.#files.set(file, kept);
  }

  /** The kept file's check against these values: one made earlier, or made now by `check` (which loads the file again). */
  checkOf(kept: Kept, against: string, check: () => CarriedCheck): CarriedCheck {
    let found = kept.checks.get(against);
    if (!found) {
      found = deepFreeze(check());
      addCheck(kept, against, found);
      this.#rechecks += 1;
    }
    return found;
  }

  /**
   * The cross-document checks of these documents: the result made for the very same documents,
   * when every one of them comes from a kept file (frozen, so the same object says the same
   * thing); otherwise made now by `check`. A daemon's run over an unchanged estate makes none.
   */
  crossCheckOf(
    loaded: readonly LoadedDocument[],
    failed: readonly FailedDocument[],
    check: () => ReturnType<typeof crossCheck>,
  ): ReturnType<typeof crossCheck> {
    const found = this.#crossChecks.find((c) => sameItems(c.loaded, loaded) && sameItems(c.failed, failed));
    if (found) return found.result;
    const result = check();
    this.#crossChecksMade += 1;
    if (loaded.every((d) => Object.isFrozen(d)) && failed.every((f) => Object.isFrozen(f))) {
      deepFreeze(result.diagnostics);
      this.#crossChecks = [{ loaded, failed, result }, ...this.#crossChecks].slice(0, CROSS_CHECKS_KEPT);
    }
    return result;
  }

  /** How many times the cross-document checks were made (not taken from an earlier load). */
  get crossChecksMade(): number {
    return this.#crossChecksMade;
  }

  /** How many times a kept file was loaded again to be checked against other sensitive values. */
  get rechecks(): number {
    return this.#rechecks;
  }

  /** Forgets the files below `paths` that are not among `found` (deleted, renamed, excluded). */
  retain(paths: readonly string[], found: readonly string[]): void {
    const present = new Set(found);
    for (const file of this.#files.keys())
      if (!present.has(file) && paths.some((p) => file === p || file.startsWith(p.endsWith(sep) ? p : p + sep))) this.#files.delete(file);
  }

  get size(): number {
    return this.#files.size;
  }
}

/**
 * A file's load as kept: the digest of the text it was loaded from, and its credential checks, one per set of
 * sensitive values it was checked against (targets whose own manifests hold different secrets
 * check the same shared file against different sets; a few are kept, the oldest forgotten).
 */
export interface Kept {
  digest: string;
  load: FileLoad;
  checks: Map<string, CarriedCheck>;
}

const CHECKS_KEPT = 16;
const CROSS_CHECKS_KEPT = 4;

interface CrossChecked {
  loaded: readonly LoadedDocument[];
  failed: readonly FailedDocument[];
  result: ReturnType<typeof crossCheck>;
}

function addCheck(kept: Kept, against: string, check: CarriedCheck): void {
  kept.checks.set(against, check);
  for (const oldest of kept.checks.keys()) {
    if (kept.checks.size <= CHECKS_KEPT) break;
    kept.checks.delete(oldest);
  }
}

/**
 * The credential check of one file's documents (trust invariant 5) against one set of sensitive
 * values: what it refused, and which of the load's documents carry a value (by their index in
 * `load.loaded`: a file loaded again to be checked has the same documents in the same order).
 */
export interface CarriedCheck {
  refused: readonly Diagnostic[];
  /** Indices in `load.loaded` of the documents that carry a sensitive value: they do not become resources. */
  carrying: ReadonlySet<number>;
}

export function carriedCheck(values: SensitiveValues, load: FileLoad): CarriedCheck {
  const refused: Diagnostic[] = [];
  const carrying = new Set<number>();
  for (const g of load.guarded) {
    const found = refuseCarried(values, [g]);
    refused.push(...found);
    if (found.length > 0 && g.loaded) carrying.add(load.loaded.indexOf(g.loaded));
  }
  return { refused, carrying };
}
