import { describe, expect, it } from 'vitest';
import { closest, didYouMean, levenshtein } from './suggest.js';

describe('suggestions', () => {
  it('measures edit distance', () => {
    expect(levenshtein('treshold', 'threshold')).toBe(1);
    expect(levenshtein('', 'abc')).toBe(3);
    expect(levenshtein('kitten', 'sitting')).toBe(3);
  });

  it('suggests only plausible typos', () => {
    expect(closest('treshold', ['threshold', 'thresholdType', 'interval'])).toBe('threshold');
    expect(closest('AGGFN', ['aggFn', 'alias'])).toBe('aggFn');
    expect(closest('colour', ['tiles', 'name'])).toBeUndefined();
    expect(didYouMean('chanel', ['channel', 'channels'])).toBe(" — did you mean 'channel'?");
    expect(didYouMean('zzz', ['channel'])).toBe('');
  });
});
