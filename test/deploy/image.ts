/** What the Dockerfile says, read once for the container tests: stages, the image's environment, entrypoint, volumes, .dockerignore. */
import { readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { envPairs, execForm, last, parseDockerfile, type Stage } from './dockerfile.js';

export const REPO = process.cwd();
export const stages = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
export const image = stages.at(-1) as Stage;
export const imageEnv = Object.fromEntries(image.instructions.filter((i) => i.keyword === 'ENV').flatMap((i) => envPairs(i.args)));
export const entrypoint = execForm(last(image, 'ENTRYPOINT')?.args ?? '') ?? [];
export const cmd = execForm(last(image, 'CMD')?.args ?? '') ?? [];
export const volumes = (last(image, 'VOLUME') ? (execForm(last(image, 'VOLUME')?.args ?? '') ?? []) : []).map((v) => posix.normalize(v));
export const under = (path: string, dir: string) => !posix.relative(dir, path).startsWith('..');

/** .dockerignore's patterns, as globs on the path relative to the build context. */
export const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*\//g, '(.*/)?')
          .replace(/\*/g, '[^/]*')}(/.*)?$`,
      ),
  );
export const isIgnored = (path: string) => {
  const rel = relative(REPO, path).split('\\').join('/');
  return rel !== '' && ignored.some((re) => re.test(rel));
};
