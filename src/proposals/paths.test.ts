import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repositoryPath } from './paths.js';

const segment = fc.constantFrom('..', '.', '', 'a', 'b.yaml', 'manifests', '..a', 'a..', '/', '//', 'x/../..');

describe('a local file in the repository', () => {
  it('keeps its place below the repository directory, and a file outside the local root has none', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), fc.boolean(), fc.constantFrom('', 'envs/prod'), (parts, absolute, repoDir) => {
        const file = `${absolute ? '/' : ''}${parts.join('/')}`;
        const out = repositoryPath('/work/manifests', repoDir, file);
        if (out === undefined) return;
        const inside = repoDir === '' ? out : out.slice(repoDir.length + 1);
        expect(repoDir === '' || out.startsWith(`${repoDir}/`)).toBe(true);
        expect(inside.split('/')).not.toContain('..');
        expect(inside.split('/')).not.toContain('');
        expect(inside.startsWith('/')).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('maps the examples', () => {
    expect(repositoryPath('/m', 'envs/prod', '/m/dash.yaml')).toBe('envs/prod/dash.yaml');
    expect(repositoryPath('/m', '', 'sub/dash.yaml')).toBe('sub/dash.yaml');
    expect(repositoryPath('/m', 'envs/prod', '/other/dash.yaml')).toBeUndefined();
    expect(repositoryPath('/m', 'envs/prod', '../m2/dash.yaml')).toBeUndefined();
    expect(repositoryPath('/m', 'envs/prod', '/m')).toBeUndefined();
    expect(repositoryPath('/m', '', '..foo/x.yaml')).toBe('..foo/x.yaml');
  });
});
