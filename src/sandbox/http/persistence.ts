/** `--data DIR`: each store as one JSON file, written atomically whenever its version moves. */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_STATE_FILE_BYTES, readRegularFile } from '../../manifests/files.js';
import type { JsonRecord } from '../domain/contract.js';

export interface Persistable {
  snapshot(): JsonRecord;
  readonly version: number;
}

export class Persistence {
  readonly #written = new Map<string, number>();

  /** `writeBack: false` starts from the files but never writes them (the bench's large seeds). */
  constructor(
    private readonly dir: string | undefined,
    private readonly writeBack = true,
  ) {
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  load(name: string): JsonRecord | undefined {
    if (!this.dir) return undefined;
    try {
      return JSON.parse(readRegularFile(join(this.dir, `${name}.json`), MAX_STATE_FILE_BYTES)) as JsonRecord;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(
        `sandbox data file ${join(this.dir, `${name}.json`)} is unreadable: ${(err as Error).message}; move it away to start fresh`,
        { cause: err },
      );
    }
  }

  /** Remembers the restored version so an untouched store is not rewritten. */
  track(name: string, store: Persistable): void {
    this.#written.set(name, store.version);
  }

  save(stores: Record<string, Persistable | undefined>): void {
    if (!this.dir || !this.writeBack) return;
    for (const [name, store] of Object.entries(stores)) {
      if (!store || this.#written.get(name) === store.version) continue;
      const file = join(this.dir, `${name}.json`);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(store.snapshot()), { mode: 0o600 });
      renameSync(tmp, file);
      this.#written.set(name, store.version);
    }
  }
}
