/** One reconcile run of a command's session, told as events like the daemon's runs. */
import { errorMessage } from '../core/errors.js';
import { entryAddress } from '../core/inventory.js';
import { eventsOfRun, firstFailure, runCounts } from '../events/derive.js';
import type { Plan } from '../core/plan.js';
import { checkPolicy } from '../policy/check.js';
import { projectFinding } from './policy-rules.js';
import { reconcile, type ReconcileRequest, type RunReport } from '../engine/reconcile.js';
import { backtestSettings } from './backtest-options.js';
import type { RunOptions } from './run-options.js';
import type { Session } from './session-types.js';
import { NO_TELEMETRY } from '../telemetry/api.js';
import { ATTR, SPAN } from '../telemetry/names.js';

/** What a command adds to a reconcile run of the session (mode, saved plan, callbacks). */
export type SessionRun = Pick<ReconcileRequest, 'mode'> &
  Partial<
    Pick<
      ReconcileRequest,
      'saved' | 'beforeApply' | 'onStepDone' | 'onStepStart' | 'concurrency' | 'signal' | 'applySignal' | 'unchangedForms' | 'previews'
    >
  >;

/**
 * One reconcile run of the session's manifests against its target, with the run flags over
 * obsync.yaml's defaults; told as events like the daemon's runs (at info: the command's output
 * already shows the plan).
 */
export function reconcileSession(session: Session, opts: RunOptions, run: SessionRun): Promise<RunReport> {
  const telemetry = session.telemetry ?? NO_TELEMETRY;
  const attributes = {
    [ATTR.target]: session.port.target,
    [ATTR.variant]: session.port.variant,
    [ATTR.mode]: run.mode,
    [ATTR.trigger]: 'manual',
  };
  return telemetry.span(SPAN.run, attributes, async (span) => {
    try {
      const report = await reconcileTold(session, opts, run);
      const failed = report.plan.errored || (report.apply?.summary.failed ?? 0) > 0;
      span.setAttributes({ [ATTR.result]: failed ? 'failure' : 'success' });
      if (failed) span.fail(report.plan.errored ? 'the plan has errors' : `${report.apply?.summary.failed ?? 0} step(s) failed`);
      return report;
    } catch (err) {
      span.setAttributes({ [ATTR.result]: 'failure' });
      throw err;
    }
  });
}

async function reconcileTold(session: Session, opts: RunOptions, run: SessionRun): Promise<RunReport> {
  const target = session.port.target;
  const ownedBefore = new Set(
    session.inventory
      .entries()
      .filter((e) => e.status === 'owned')
      .map(entryAddress),
  );
  session.events.emit(target, { event: 'run-started', mode: run.mode, trigger: ['cli'] });
  const started = performance.now();
  const requests = session.port.stats.requests;
  const finished = (result: 'success' | 'failure', rest: { counts?: ReturnType<typeof runCounts>; error?: string }) =>
    session.events.emit(target, {
      event: 'run-finished',
      mode: run.mode,
      result,
      durationMs: Math.round(performance.now() - started),
      counts: rest.counts ?? { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 },
      requests: session.port.stats.requests - requests,
      planned: rest.counts !== undefined,
      ...(rest.error === undefined ? {} : { error: rest.error }),
    });
  let report: RunReport;
  // What the command shows (the plan before the prompt, every output after) names files as the project does.
  const before = run.beforeApply;
  const shown = before ? { ...run, beforeApply: (plan: Plan) => before(session.shown.plan(plan)) } : run;
  try {
    const made = await reconcileOnce(session, opts, shown);
    report = { ...made, plan: session.shown.plan(made.plan) };
  } catch (err) {
    finished('failure', { error: errorMessage(err) });
    throw err;
  }
  const events = eventsOfRun(report, { ownedBefore });
  for (const e of events) session.events.emit(target, e);
  const error = firstFailure(events);
  finished(report.plan.errored || (report.apply?.summary.failed ?? 0) > 0 ? 'failure' : 'success', {
    counts: runCounts(report),
    ...(error === undefined ? {} : { error }),
  });
  return report;
}

async function reconcileOnce(session: Session, opts: RunOptions, run: SessionRun): Promise<RunReport> {
  const ownersElsewhere = await session.ownersElsewhere();
  return reconcile({
    port: session.port,
    inventory: session.inventory,
    desired: session.desired,
    ...(session.manifests ? { manifests: session.manifests } : {}),
    selection: opts.selection,
    prune: opts.prune ?? session.defaults.prune,
    pruneCascade: opts.pruneCascade ?? false,
    maxDeletes: opts.maxDeletes ?? session.defaults.maxDeletes,
    ...(opts.allowEmptyKinds ? { allowEmptyKinds: opts.allowEmptyKinds } : {}),
    concurrency: session.defaults.concurrency,
    adopt: session.adopt,
    identity: session.identity,
    ...(ownersElsewhere.size > 0 ? { ownersElsewhere } : {}),
    ...backtestOf(backtestSettings(opts, session.defaults.backtest, false)),
    // Named as the project names its files: the findings go into the plan, its outputs and a refusal's message.
    policy: (plan) =>
      checkPolicy({
        resources: session.desired,
        rules: session.policy.rules,
        settings: session.policy.settings,
        target: { name: session.port.target, variant: session.port.variant },
        plan,
      }).map((f) => projectFinding(session.shown, f)),
    ...run,
    ...(session.telemetry ? { telemetry: session.telemetry } : {}),
  });
}

function backtestOf(settings: ReturnType<typeof backtestSettings>): { backtest?: NonNullable<typeof settings> } {
  return settings ? { backtest: settings } : {};
}
