/**
 * The container image's rules, as far as they are read from the Dockerfile: pinned base, non-root
 * numeric user, exec forms, state under the volume, COPYs of files that exist and are not ignored,
 * the OCI labels of package.json's repository, version and license.
 * Its stages run for real (without Docker) in ./replays.slow.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseObsyncArgs } from './cli-args.js';
import { copyArgs, execForm, labelPairs, last } from './dockerfile.js';
import { cmd, entrypoint, image, imageEnv, isIgnored, REPO, stages, under, volumes } from './image.js';

describe('the Dockerfile', () => {
  it('pins every stage to one exact Node 24 version on Alpine, by digest', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const images = new Set(stages.map((s) => s.image));
    expect(images.size).toBe(1);
    expect(image.image).toMatch(/^node:24\.\d+\.\d+-alpine\d+\.\d+@sha256:[0-9a-f]{64}$/);
  });

  it('runs as a numeric non-root user, in exec form, with the state and the backups under the volume', () => {
    const user = last(image, 'USER')?.args ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    expect(entrypoint.slice(0, 3)).toEqual(['node', 'dist/cli/main.js', 'run']);
    expect(execForm((last(image, 'HEALTHCHECK')?.args ?? '').replace(/^.*?CMD\s+/, ''))?.[0]).toBe('node');
    expect(stages.flatMap((s) => s.instructions).some((i) => i.keyword === 'ADD')).toBe(false);
    const stateDir = imageEnv.OBSYNC_STATE_DIR ?? '';
    // Backups go inside the state directory (<state>/backups): both must be on the volume.
    expect(volumes.some((v) => under(stateDir, v))).toBe(true);
    expect(stateDir).not.toBe('/');
  });

  it('starts a command line the CLI accepts', async () => {
    expect((await parseObsyncArgs([...entrypoint.slice(2), ...cmd])).command).toBe('run');
  });

  it('installs the runtime dependencies with `npm ci --omit=dev`, and copies only files that exist and are not ignored', () => {
    expect(stages.flatMap((s) => s.instructions).some((i) => i.keyword === 'RUN' && /^npm ci --omit=dev\b/.test(i.args))).toBe(true);
    for (const copy of stages
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY')
      .map((i) => copyArgs(i.args))) {
      if (copy.from !== undefined) continue;
      for (const source of copy.sources) {
        expect(existsSync(join(REPO, source)), `COPY ${source}`).toBe(true);
        expect(isIgnored(join(REPO, source)), `COPY ${source} is excluded by .dockerignore`).toBe(false);
      }
    }
  });

  it('carries the OCI labels: the source repository, the version and the licences of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license: string;
      repository: { url: string };
    };
    const labels = Object.fromEntries(image.instructions.filter((i) => i.keyword === 'LABEL').flatMap((i) => labelPairs(i.args)));
    const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(repository).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    expect(labels).toMatchObject({
      'org.opencontainers.image.title': pkg.name,
      'org.opencontainers.image.source': repository,
      'org.opencontainers.image.version': pkg.version,
      'org.opencontainers.image.licenses': pkg.license,
    });
    // Labels of a build stage are not the image's: only the last stage's count.
    expect(
      stages
        .slice(0, -1)
        .flatMap((s) => s.instructions)
        .filter((i) => i.keyword === 'LABEL'),
    ).toEqual([]);
  });
});
