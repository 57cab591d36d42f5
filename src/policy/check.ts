/**
 * One policy check: the built-in rules, the custom rules and the waivers, over the manifests of
 * one target (lint) or over its plan too (plan, apply). Pure: the same input gives the same
 * findings, in the same order.
 */
import type { Plan } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import { compileRules, customFindings, type ChangeInput, type Subject, type TargetInput } from './custom.js';
import { manifestFindings } from './manifest-rules.js';
import { sortFindings, type Finding } from './model.js';
import { planFindings } from './plan-rules.js';
import type { PolicyRule } from './policy-manifest.js';
import type { PolicySettings } from './settings.js';
import { applyWaivers } from './waivers.js';

export interface PolicyCheck {
  resources: readonly DesiredResource[];
  rules: readonly PolicyRule[];
  settings: PolicySettings | undefined;
  target: TargetInput;
  /** With a plan: the plan rules too, and custom rules see each object's change. */
  plan?: Plan;
}

const LINT: ChangeInput = { action: 'lint', reason: 'lint', changes: [] };

export function checkPolicy(check: PolicyCheck): Finding[] {
  const byAddress = new Map(check.resources.map((r) => [r.address as string, r]));
  const { compiled, findings } = compileRules(check.rules);
  findings.push(...manifestFindings(check.resources, check.settings));
  findings.push(...customFindings(compiled, subjects(check, byAddress), check.target));
  if (check.plan) findings.push(...planFindings(check.plan, byAddress, check.settings));
  return sortFindings(applyWaivers(findings, (address) => byAddress.get(address)?.waivers));
}

/** Every declared object; with a plan, each with the change its step makes. */
function subjects(check: PolicyCheck, byAddress: ReadonlyMap<string, DesiredResource>): Subject[] {
  if (!check.plan) return check.resources.map((res) => ({ res, change: LINT }));
  const out: Subject[] = [];
  for (const step of check.plan.steps) {
    const res = byAddress.get(step.address);
    if (!res) continue;
    const change: ChangeInput = {
      action: step.action,
      reason: step.reason,
      changes: step.changes.map((c) => ({ path: c.path, before: c.before, after: c.after })),
      ...(step.backtest ? { backtest: step.backtest } : {}),
    };
    out.push({ res, change });
  }
  return out;
}
