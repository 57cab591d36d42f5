/**
 * One target's ignore rules and mark (issue 48) from obsync.yaml: the target's rules added to
 * those under `defaults`, each with where it was declared; its mark and its ignoreSuggestions
 * replace the default ones.
 */
import type { IgnoreRule } from '../core/ignore.js';
import type { Kind } from '../core/plan.js';
import { durationMs } from '../core/duration.js';
import type { IgnoreSetting, MarkSetting } from './field-rules-schema.js';
import type { ObsyncConfig } from './schema.js';

export type KindIgnoreRules = Partial<Record<Kind, readonly IgnoreRule[]>>;

export function targetIgnoreRules(config: ObsyncConfig | undefined, target: string): KindIgnoreRules {
  const byKind = new Map<Kind, IgnoreRule[]>();
  const add = (setting: IgnoreSetting | undefined, from: string) => {
    for (const [kind, paths] of Object.entries(setting ?? {}) as [Kind, readonly string[] | undefined][])
      for (const path of paths ?? []) byKind.set(kind, [...(byKind.get(kind) ?? []), { path, from: `${from}.${kind}` }]);
  };
  add(config?.defaults?.ignore, 'defaults.ignore');
  add(config?.targets?.find((t) => t.name === target)?.ignore, `targets[${target}].ignore`);
  return Object.fromEntries(byKind);
}

export function targetMark(config: ObsyncConfig | undefined, target: string): MarkSetting | undefined {
  return config?.targets?.find((t) => t.name === target)?.mark ?? config?.defaults?.mark;
}

/** How often a field must drift, within how long, before the daemon suggests an ignore rule for it. */
export interface IgnoreSuggestionSettings {
  after: number;
  withinMs: number;
}

export const DEFAULT_IGNORE_SUGGESTIONS: IgnoreSuggestionSettings = { after: 3, withinMs: 30 * 86_400_000 };

/** The target's setting (it replaces the one under defaults); false: off. */
export function targetIgnoreSuggestions(config: ObsyncConfig | undefined, target: string): IgnoreSuggestionSettings | false {
  const setting = config?.targets?.find((t) => t.name === target)?.ignoreSuggestions ?? config?.defaults?.ignoreSuggestions;
  if (setting === false) return false;
  return {
    after: setting?.after ?? DEFAULT_IGNORE_SUGGESTIONS.after,
    withinMs: (setting?.within === undefined ? null : durationMs(setting.within, 'd')) ?? DEFAULT_IGNORE_SUGGESTIONS.withinMs,
  };
}
