/**
 * The built-in rules over a plan: what a change does (a delete on a protected target) and what a
 * changed alert's backtest predicts (noisy, dead). They read the plan only: a plan made with
 * backtests off gives the backtest rules nothing to judge.
 */
import { durationMs } from '../core/duration.js';
import type { Backtest } from '../core/backtest.js';
import type { Plan, PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import { dataFindings } from './data-rules.js';
import { findingAt, type Finding, type Severity } from './model.js';
import { DEFAULT_MAX_EPISODES_PER_DAY, DEFAULT_MAX_FIRING_SHARE, severityOf, type PolicySettings } from './settings.js';

export function planFindings(plan: Plan, resources: ReadonlyMap<string, DesiredResource>, settings: PolicySettings | undefined): Finding[] {
  const out: Finding[] = [];
  const protectedDelete = settings?.protectedTargets?.includes(plan.target) ? severityOf('protected-delete', settings) : null;
  const noisy = severityOf('noisy-alert', settings);
  const dead = severityOf('dead-alert', settings);
  for (const step of plan.steps) {
    if (protectedDelete && step.action === 'delete') out.push(deleteFinding(step, plan.target, protectedDelete));
    const res = resources.get(step.address);
    const backtest = step.backtest;
    if (!res || step.kind !== 'Alert' || !backtest || backtest.status !== 'ok' || !backtest.evaluated) continue;
    if (noisy) out.push(...noisyFindings(res, backtest, settings, noisy));
    out.push(...dataFindings(res, backtest, settings));
    if (dead && backtest.firing === 0)
      out.push(
        findingAt(
          res,
          'dead-alert',
          dead,
          `${res.address} never fired over the last ${backtest.window} (${backtest.evaluated} windows): check its threshold and query`,
        ),
      );
  }
  return out;
}

/** Not declared any more, so not in a manifest: located at the file that declared it, when the inventory recorded it. */
function deleteFinding(step: PlanStep, target: string, severity: Severity): Finding {
  const file = step.record?.source;
  return {
    rule: 'protected-delete',
    severity,
    message: `${step.address} would be deleted on target '${target}', which policy.protectedTargets protects`,
    address: step.address,
    ...(file ? { file, line: 1 } : {}),
  };
}

function noisyFindings(res: DesiredResource, backtest: Backtest, settings: PolicySettings | undefined, severity: Severity): Finding[] {
  const evaluated = backtest.evaluated ?? 0;
  const firing = backtest.firing ?? 0;
  const episodes = backtest.episodes ?? 0;
  const maxShare = settings?.noisyAlert?.maxFiringShare ?? DEFAULT_MAX_FIRING_SHARE;
  const maxPerDay = settings?.noisyAlert?.maxEpisodesPerDay ?? DEFAULT_MAX_EPISODES_PER_DAY;
  const days = (durationMs(backtest.window, 'mhd') ?? 86_400_000) / 86_400_000;
  const share = firing / evaluated;
  const perDay = episodes / days;
  const over: string[] = [];
  if (share > maxShare) over.push(`fires in ${percent(share)} of windows (at most ${percent(maxShare)})`);
  if (perDay > maxPerDay) over.push(`${round(perDay)} episodes a day (at most ${maxPerDay})`);
  if (over.length === 0) return [];
  return [
    findingAt(res, 'noisy-alert', severity, `${res.address} would page constantly over the last ${backtest.window}: ${over.join(', ')}`),
  ];
}

function percent(share: number): string {
  return `${round(share * 100)}%`;
}

function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}
