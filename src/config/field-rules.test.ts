import { describe, expect, it } from 'vitest';
import { DEFAULT_IGNORE_SUGGESTIONS, targetIgnoreSuggestions } from './field-rules.js';
import { loadConfig } from './load.js';

const HEAD = 'apiVersion: obsync/v1\nkind: Config\nmanifests: [m]\n';
const TARGET = '  - name: prod\n    variant: self-hosted\n    baseUrl: http://127.0.0.1:8000\n    credentials: {apiKey: k}\n';

function load(text: string) {
  return loadConfig('/repo/obsync.yaml', {}, { readFile: () => HEAD + text });
}

describe('ignoreSuggestions (issue 48 item 2)', () => {
  it('is on by default (3 runs in 30 days); a target setting replaces the one under defaults; false turns it off', () => {
    expect(targetIgnoreSuggestions(load(`targets:\n${TARGET}`).config, 'prod')).toEqual(DEFAULT_IGNORE_SUGGESTIONS);
    const both = load(`defaults:\n  ignoreSuggestions: {after: 5}\ntargets:\n${TARGET}    ignoreSuggestions: {within: 7d}\n`);
    expect(both.diagnostics).toEqual([]);
    expect(targetIgnoreSuggestions(both.config, 'prod')).toEqual({ after: 3, withinMs: 7 * 86_400_000 });
    expect(targetIgnoreSuggestions(both.config, 'other')).toEqual({ after: 5, withinMs: 30 * 86_400_000 });
    expect(targetIgnoreSuggestions(load(`defaults:\n  ignoreSuggestions: false\ntargets:\n${TARGET}`).config, 'prod')).toBe(false);
  });

  it('refuses a window that is not in days and a count below 2, at the key', () => {
    const out = load(`defaults:\n  ignoreSuggestions: {after: 1, within: 12h}\n`);
    expect(out.config).toBeUndefined();
    expect(out.diagnostics.map((d) => `${d.line} ${d.path}`)).toEqual([
      '5 defaults.ignoreSuggestions.after',
      '5 defaults.ignoreSuggestions.within',
    ]);
  });
});
