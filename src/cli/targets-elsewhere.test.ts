import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readersElsewhere, targetsElsewhere } from './targets-elsewhere.js';
import type { Project } from './wiring.js';

const root = '/repo';
function project(declared: Project['declared'], manifests?: string[]): Project {
  return {
    configPath: join(root, 'obsync.yaml'),
    config: manifests ? ({ manifests } as Project['config']) : undefined,
    declared,
    services: new Map(),
    baseDir: root,
    targets: [],
    sensitive: [],
    unavailable: [],
  };
}

describe('targets a command did not open, and the files they read', () => {
  it('reads each unopened target its top-level and own paths as obsync.yaml writes them; a templated list reads everything', () => {
    const p = project(
      [
        { name: 'staging', api: 'self-hosted', listed: ['staging'] },
        { name: 'production', api: 'hosted', listed: ['production'] },
        { name: 'preview', api: 'hosted', listed: 'templated' },
      ],
      ['base'],
    );
    const elsewhere = targetsElsewhere(root, { paths: [] }, p, ['staging']);
    expect(elsewhere).toEqual([
      { target: 'production', paths: ['/repo/base', '/repo/production'] },
      { target: 'preview', paths: ['/repo'] },
    ]);
    const readers = readersElsewhere(elsewhere);
    expect(readers('/repo/base/dashboards/a.yaml')).toEqual(['production', 'preview']);
    expect(readers('/repo/staging/a.yaml')).toEqual(['preview']);
    // A folder's name is not a prefix of another's.
    expect(readers('/repo/base2/a.yaml')).toEqual(['preview']);
    expect(readersElsewhere(elsewhere.slice(0, 1))('/repo/base2/a.yaml')).toEqual([]);
  });

  it('with no top-level manifests, a target without its own reads the whole project', () => {
    const p = project([
      { name: 'a', api: 'self-hosted' },
      { name: 'b', api: 'self-hosted' },
    ]);
    expect(targetsElsewhere(root, { paths: [] }, p, ['a'])).toEqual([{ target: 'b', paths: ['/repo'] }]);
  });
});
