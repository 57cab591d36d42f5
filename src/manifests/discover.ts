/** Finds every `.yaml`/`.yml` file below the given paths, sorted so every run reads them in the same order. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';

const YAML_FILE = /\.ya?ml$/i;
/** Hidden folders (.git, .obsync) and dependencies never hold manifests. */
const SKIPPED_DIR = (name: string) => name.startsWith('.') || name === 'node_modules';

export function discoverFiles(paths: readonly string[]): { files: string[]; diagnostics: Diagnostic[] } {
  const files = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const p of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      diagnostics.push({ severity: 'error', code: 'missing-path', message: `manifest path ${p} does not exist`, file: p });
      continue;
    }
    if (!isDir) {
      if (YAML_FILE.test(p)) files.add(p);
      else diagnostics.push({ severity: 'error', code: 'not-yaml', message: `${p} is not a .yaml/.yml file`, file: p });
      continue;
    }
    for (const f of walk(p)) files.add(f);
  }
  return { files: [...files].sort(), diagnostics };
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIR(entry.name)) out.push(...walk(full));
    } else if (entry.isFile() && YAML_FILE.test(entry.name)) out.push(full);
  }
  return out;
}
