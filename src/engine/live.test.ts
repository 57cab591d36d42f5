import { describe, expect, it } from 'vitest';
import { neededKinds } from './live.js';

describe('neededKinds', () => {
  it('adds the kinds the inventory owns deletable objects of, so a prune of the last one sees them', () => {
    expect([...neededKinds([{ kind: 'Dashboard' }], [{ kind: 'PipeSshKey' }, { kind: 'Role' }])].sort()).toEqual([
      'Dashboard',
      'PipeSshKey',
      'Role',
    ]);
    // Pipes are never deleted: an owned one with no manifest left is not read (that read would wake an idle service).
    expect([...neededKinds([], [{ kind: 'Pipe' }, { kind: 'TeamSettings' }])]).toEqual([]);
  });
});
