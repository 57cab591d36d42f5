import { describe, expect, it } from 'vitest';
import { parseIgnorePath, ruleCovers } from '../core/ignore.js';
import { overlay } from '../planner/ignore.js';
import { ignorePathProblem } from './ignore-rules.js';

describe('ignore paths', () => {
  it('parse field names and [*] only', () => {
    expect(parseIgnorePath('tiles[*].x')).toEqual({ segments: ['tiles', '*', 'x'] });
    expect(parseIgnorePath('savedFilterValues')).toEqual({ segments: ['savedFilterValues'] });
    for (const bad of ['', '.x', 'tiles[0].x', 'tiles[*]x', 'a..b', '[*].x', 'tiles[p99].x', 'a b'])
      expect(parseIgnorePath(bad), bad).toHaveProperty('error');
  });

  it('cover a difference at or under the rule, [*] matching any index or part key', () => {
    expect(ruleCovers(['tiles', '*', 'x'], ['tiles', 'p99', 'x'])).toBe(true);
    expect(ruleCovers(['tiles', '*', 'x'], ['tiles', 'p99', 'y'])).toBe(false);
    expect(ruleCovers(['tiles', '*', 'x'], ['tiles', 'p99'])).toBe(false);
    expect(ruleCovers(['savedFilterValues'], ['savedFilterValues', 0, 'condition'])).toBe(true);
  });

  it("are checked against the kind's schema, with a did-you-mean", () => {
    expect(ignorePathProblem('Dashboard', 'tiles[*].x')).toBeUndefined();
    expect(ignorePathProblem('Dashboard', 'tiles[*].config.select[*].aggFn')).toBeUndefined();
    expect(ignorePathProblem('Dashboard', 'savedFilterValues')).toBeUndefined();
    expect(ignorePathProblem('Alert', 'threshold')).toBeUndefined();
    expect(ignorePathProblem('Dashboard', 'tiles[*].xx')).toBe(
      "ignore path 'tiles[*].xx': Dashboard has no field spec.tiles[*].xx — did you mean 'x'?",
    );
    expect(ignorePathProblem('Dashboard', 'savedFilterValue')).toContain("did you mean 'savedFilterValues'?");
    expect(ignorePathProblem('Dashboard', 'tiles.x')).toBe("ignore path 'tiles.x': spec.tiles is a list: write tiles[*].x");
    expect(ignorePathProblem('Dashboard', 'name[*]')).toBe("ignore path 'name[*]': spec.name is not a list (leave out [*])");
    expect(ignorePathProblem('Dashboard', 'tiles[*].key')).toContain("a tile's key is obsync's name for it");
    expect(ignorePathProblem('Alert', 'silenced')).toContain('Alert has no field spec.silenced');
  });

  it('refuse a sensitive field, or one that holds one', () => {
    expect(ignorePathProblem('Webhook', 'headers')).toContain('sensitive');
    expect(ignorePathProblem('Connection', 'password')).toContain('sensitive');
  });

  it('overlay the live value at the path only, tiles paired by key, without touching the manifest', () => {
    const spec = {
      name: 'a',
      tiles: [
        { key: 'p', x: 0, y: 1 },
        { key: 'q', x: 2, y: 3 },
        { key: 'new', x: 9, y: 9 },
      ],
    };
    const live = {
      name: 'b',
      tiles: [
        { key: 'q', x: 7, y: 8 },
        { key: 'p', x: 5, y: 6 },
      ],
    };
    const frozen = structuredClone(spec);
    expect(overlay(spec, live, ['tiles', '*', 'x'])).toEqual({
      name: 'a',
      tiles: [
        { key: 'p', x: 5, y: 1 },
        { key: 'q', x: 7, y: 3 },
        { key: 'new', x: 9, y: 9 },
      ],
    });
    expect(spec).toEqual(frozen);
    expect(overlay({ name: 'a', tags: ['x'] }, { name: 'a' }, ['tags'])).toEqual({ name: 'a' });
  });
});
