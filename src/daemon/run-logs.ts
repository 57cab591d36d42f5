/** The log lines of a run's plan that are not events: its warnings and what it predicts of each change. */
import type { Plan } from '../core/plan.js';
import type { Logger } from '../log/logger.js';

/** Plan warnings are not events (nothing was refused or failed): a log line each. */
export function logPlanWarnings(logger: Logger, target: string, plan: Plan): void {
  for (const d of plan.diagnostics)
    if (d.severity === 'warning')
      logger.warn(
        { target, address: d.address, file: d.file, line: d.line, path: d.path, code: d.code, detail: d.message },
        'plan warning',
      );
}

/** What the plan predicts of a change: an alert's backtest (when configured), what else it touches; one log line each. */
export function logPredictions(logger: Logger, target: string, plan: Plan): void {
  for (const step of plan.steps)
    if (step.backtest || step.impact)
      logger.info(
        {
          target,
          address: step.address,
          action: step.action,
          ...(step.backtest ? { backtest: step.backtest } : {}),
          ...(step.impact ? { impact: step.impact } : {}),
        },
        'predicted',
      );
}
