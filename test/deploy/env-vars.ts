/**
 * Every environment variable obsync reads, found in its source (not a hand-kept list, so the README
 * check cannot go stale): `env.NAME`, any `OBSYNC_*` name, a secret's `*_FILE` twin, the proxy
 * variables with their lowercase forms. Plus those Node.js itself reads for obsync.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SRC = join(import.meta.dirname, '../../src');

/** Read by Node.js at start-up, not by obsync's code; documented all the same. */
export const NODE_READS = ['NODE_EXTRA_CA_CERTS'] as const;

export function envVarsObsyncReads(): Set<string> {
  const names = new Set<string>(NODE_READS);
  const files = readdirSync(SRC, { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'),
  );
  for (const entry of files) {
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1] ?? '');
    for (const m of text.matchAll(/\bOBSYNC_[A-Z][A-Z0-9_]*\b/g)) names.add(m[0]);
    for (const m of text.matchAll(/secretFrom\(env, '([A-Z][A-Z0-9_]*)'/g)) names.add(`${m[1] ?? ''}_FILE`);
    for (const m of text.matchAll(/pick\('([A-Z][A-Z0-9_]*)'\)/g)) names.add(m[1] ?? '').add((m[1] ?? '').toLowerCase());
  }
  names.delete('');
  return names;
}
