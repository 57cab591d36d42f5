import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIgnorePath, ruleCovers } from '../core/ignore.js';
import { KINDS } from '../kinds/registry.js';
import { splitPath } from '../planner/diff.js';
import { ignorePathProblem } from '../manifests/ignore-rules.js';
import { suggestedIgnoreRule } from './ignore-suggestion.js';

describe('suggested ignore rules', () => {
  it('write each list item as [*], and pass the check a written rule passes', () => {
    expect(suggestedIgnoreRule('Dashboard', 'tiles.p99.x')).toBe('tiles[*].x');
    expect(suggestedIgnoreRule('Dashboard', 'tiles[p99-latency].w')).toBe('tiles[*].w');
    expect(suggestedIgnoreRule('Dashboard', 'tiles.p99.config.select[0].aggFn')).toBe('tiles[*].config.select[*].aggFn');
    expect(suggestedIgnoreRule('Dashboard', 'savedFilterValues[0]')).toBe('savedFilterValues');
    expect(suggestedIgnoreRule('Alert', 'threshold')).toBe('threshold');
    for (const rule of ['tiles[*].x', 'tiles[*].config.select[*].aggFn', 'savedFilterValues'])
      expect(ignorePathProblem('Dashboard', rule)).toBeUndefined();
  });

  it('suggest none for what a rule may not name: a whole tile, a tile key, a sensitive field, no field', () => {
    expect(suggestedIgnoreRule('Dashboard', 'tiles.p99')).toBeUndefined();
    expect(suggestedIgnoreRule('Dashboard', 'tiles.p99.key')).toBeUndefined();
    expect(suggestedIgnoreRule('Webhook', 'headers.Authorization')).toBeUndefined();
    expect(suggestedIgnoreRule('Dashboard', 'nosuchfield')).toBeUndefined();
  });

  // The class: a suggestion someone pastes must be a rule obsync accepts, and must cover the field that drifted.
  it('are rules the check accepts that cover the drifted path, or none (property)', () => {
    const seg = fc.constantFrom<string | number>(
      ...['tiles', 'p99', 'x', 'key', 'config', 'select', 'aggFn', 'headers', 'url', 'password', 'name', 'threshold'],
      ...['savedFilterValues', 'condition', 'channel', 'webhook', 'tags', 'nosuch', 0, 1],
    );
    const path = fc.array(seg, { minLength: 1, maxLength: 5 }).map((segs) =>
      segs
        .map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`))
        .join('')
        .slice(1),
    );
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), path, (kind, changePath) => {
        const rule = suggestedIgnoreRule(kind, changePath);
        if (rule === undefined) return;
        expect(ignorePathProblem(kind, rule)).toBeUndefined();
        const parsed = parseIgnorePath(rule);
        expect('segments' in parsed && ruleCovers(parsed.segments, splitPath(changePath))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
