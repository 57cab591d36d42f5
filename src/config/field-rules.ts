/**
 * One target's ignore rules and mark (issue 48) from obsync.yaml: the target's rules added to
 * those under `defaults`, each with where it was declared; its mark replaces the default one.
 */
import type { IgnoreRule } from '../core/ignore.js';
import type { Kind } from '../core/plan.js';
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
