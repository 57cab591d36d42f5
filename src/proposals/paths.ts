/**
 * Where a local manifest file goes in the repository: `writeBack.path` stands for the local
 * directory of obsync.yaml, so a file below it keeps its relative path there; a file anywhere
 * else (`..`, another root) has no place and is never written (the caller names it as a conflict).
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** `repoDir/rel` for a file below `localRoot` (absolute, or relative to it); undefined otherwise. */
export function repositoryPath(localRoot: string, repoDir: string, file: string): string | undefined {
  const rel = relative(localRoot, resolve(localRoot, file));
  if (rel === '' || isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) return undefined;
  const posixRel = rel.split(sep).join('/');
  return repoDir === '' ? posixRel : `${repoDir}/${posixRel}`;
}
