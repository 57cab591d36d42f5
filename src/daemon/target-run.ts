/**
 * The work of one daemon run on its target: load the manifests (keeping the last good ones), plan
 * and apply, propose held drift, and emit what it found as events. What it learns stays here between
 * runs (the last good load, the last plan, what is owned, since when the service is unreachable).
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { hasErrors } from '../core/diagnostics.js';
import { errorMessage } from '../core/errors.js';
import { isServiceDrift } from '../core/drift.js';
import { entryAddress } from '../core/inventory.js';
import type { PolicyFinding } from '../core/finding.js';
import type { PolicyRule } from '../policy/policy-manifest.js';
import type { Plan, PlanStep } from '../core/plan.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import { reconcile, type RunReport } from '../engine/reconcile.js';
import { eventsOfRun, firstFailure } from '../events/derive.js';
import type { LastRun } from '../events/status-model.js';
import type { EventBody } from '../events/vocabulary.js';
import { resourceCounts } from './resource-counts.js';
import { RunMemo } from '../engine/memo.js';
import { DEFAULT_IGNORE_SUGGESTIONS } from '../config/field-rules.js';
import { DriftHistory, suggestionEvent } from './drift-history.js';
import { recordKept } from './kept-drift-history.js';
import type { DaemonDeps, DaemonOptions } from './daemon-deps.js';
import { DriftProposal } from './drift-proposal.js';
import { PlanPictures } from './plan-pictures.js';
import { logPlanWarnings, logPredictions } from './run-logs.js';
import { failureOfRun, manifestsInvalid, manifestsSignature, ownedByKind } from './tracker.js';

/** What a run found, for its run-finished event and the target's state. */
export interface RunOutcome {
  result: LastRun['result'];
  report?: RunReport;
  error?: string;
  /** The error's code (what /readyz may say of it). */
  code?: string;
}

export class TargetRun {
  lastGood: DesiredResource[] | null = null;
  /** The Policy rules of the last good load. */
  #lastGoodPolicies: readonly PolicyRule[] = [];
  /** The files of the last good load that declare nothing (with the desired state they go with). */
  #lastGoodFiles: ManifestFiles | undefined;
  manifests = { loaded: false, valid: false, errors: 0, signature: '' };
  lastPlan: { plan: Plan; at: Date } | null = null;
  #unreachableSince: Date | null = null;
  owned: Record<string, number> = {};
  /** What the last runs found unchanged: an unchanged estate is re-planned at little more than the cost of reading it. */
  readonly #memo = new RunMemo();
  readonly driftHistory: DriftHistory | null;
  readonly proposal: DriftProposal;
  /** The pictures of the last plan, for the status page. */
  readonly pictures = new PlanPictures();

  constructor(
    private readonly deps: DaemonDeps,
    private readonly opts: DaemonOptions,
    private readonly emit: (body: EventBody) => void,
    private readonly now: () => Date,
  ) {
    const suggest = opts.ignoreSuggestions ?? DEFAULT_IGNORE_SUGGESTIONS;
    this.driftHistory = suggest ? new DriftHistory(deps.port.target, suggest, now) : null;
    this.proposal = new DriftProposal(deps, opts, emit, now);
  }

  /** Load, plan (and apply); the run's events are emitted as soon as the report is in. */
  async run(signal: AbortSignal): Promise<RunOutcome> {
    const { metrics } = this.deps;
    const target = this.deps.port.target;
    await this.deps.inventory.refresh();
    const { desired, diagnostics, manifests, policies } = this.deps.loadDesired();
    const invalid = hasErrors(diagnostics);
    metrics.manifestErrors.set({ target }, diagnostics.filter((d) => d.severity === 'error').length);
    this.#manifestsLoaded(diagnostics, invalid);
    if (!invalid) {
      this.lastGood = desired;
      this.#lastGoodFiles = manifests;
      this.#lastGoodPolicies = policies ?? [];
    }
    const current = this.lastGood;
    if (current === null) return { result: 'invalid-manifests', error: 'the manifests are invalid', code: 'manifests-invalid' };
    const ownersElsewhere = await this.deps.ownersElsewhere?.();
    const ownedBefore = new Set(
      this.deps.inventory
        .entries()
        .filter((e) => e.status === 'owned')
        .map(entryAddress),
    );
    const hold = invalid ? undefined : this.#holds(ownedBefore);
    // Invalid manifests: report drift against the last good state, write nothing (not even ownership).
    const report = await reconcile({
      mode: invalid ? 'plan' : this.opts.mode,
      port: this.deps.port,
      inventory: this.deps.inventory,
      desired: current,
      ...(this.#lastGoodFiles ? { manifests: this.#lastGoodFiles } : {}),
      ...(this.deps.sensitive ? { sensitive: this.deps.sensitive } : {}),
      selection: this.opts.selection,
      prune: this.opts.prune,
      pruneCascade: this.opts.pruneCascade ?? false,
      maxDeletes: this.opts.maxDeletes,
      ...(this.opts.adopt ? { adopt: this.opts.adopt } : {}),
      ...(this.opts.backtest ? { backtest: this.opts.backtest } : {}),
      // The status page's pictures (none with --no-previews). Their tiles' data only when the daemon backtests:
      // it asks the service for series only when obsync.yaml says so (defaults.backtest).
      previews: this.opts.previews === false ? false : this.opts.backtest ? true : 'layout',
      ...(invalid ? { pruneBlockers: ['the manifests are invalid'] } : {}),
      memo: this.#memo,
      ...(ownersElsewhere && ownersElsewhere.size > 0 ? { ownersElsewhere } : {}),
      signal,
      concurrency: this.opts.concurrency,
      ...(hold ? { hold } : {}),
      ...(this.deps.policy ? { policy: (plan: Plan) => this.#policy(plan, current) } : {}),
      ...(this.deps.telemetry ? { telemetry: this.deps.telemetry } : {}),
    });
    const proposeFailure = invalid
      ? undefined
      : await this.proposal.propose({ report, desired: current, manifests: this.#lastGoodFiles, ownersElsewhere, signal });
    logPredictions(this.deps.logger, target, report.plan);
    this.#reachable();
    this.lastPlan = { plan: report.plan, at: this.now() };
    this.owned = ownedByKind(this.deps.inventory.entries());
    logPlanWarnings(this.deps.logger, target, report.plan);
    // The state after this run's apply, so a healed object is not shown as drifted until the next run.
    metrics.setResources(target, resourceCounts(report.plan, report.apply));
    const events = eventsOfRun(report, { ownedBefore });
    if (proposeFailure) events.push(proposeFailure);
    if (this.driftHistory)
      events.push(...(await recordKept(this.driftHistory, report, this.deps.inventory, this.deps.logger)).map(suggestionEvent));
    for (const e of events) this.emit(e);
    // After the events: drawing takes a few hundred ms a dashboard, which no event waits for.
    if (this.opts.previews !== false) await this.pictures.keep(report);
    const failed =
      (report.apply ? report.apply.summary.failed + report.apply.summary.refused > 0 : false) ||
      report.plan.errored ||
      proposeFailure !== undefined;
    const error = failed ? (firstFailure(events) ?? 'a step failed') : undefined;
    return {
      result: invalid ? 'invalid-manifests' : failed ? 'failure' : 'success',
      report,
      ...(invalid
        ? { error: 'the manifests are invalid: running on the last good state', code: 'manifests-invalid' }
        : error
          ? { error, code: firstFailureCode(events) }
          : {}),
    };
  }

  /** A run that threw before its report: the service unreachable (a state change), or another failure. */
  thrown(err: unknown): RunOutcome {
    const body = failureOfRun(err);
    if (body.event === 'failed' || this.#unreachableSince === null) this.emit(body);
    if (body.event === 'target-unreachable') this.#unreachableSince ??= this.now();
    return { result: 'failure', error: errorMessage(err), code: body.code };
  }

  #policy(plan: Plan, desired: readonly DesiredResource[]): PolicyFinding[] {
    return this.deps.policy?.(plan, desired, this.#lastGoodPolicies) ?? [];
  }

  /** The steps this run holds back (`drift: report | propose`, apply mode); undefined: every step is applied. */
  #holds(ownedBefore: ReadonlySet<string>): ((step: PlanStep) => boolean) | undefined {
    if (this.opts.mode !== 'apply') return undefined;
    if (this.opts.drift === 'report') return (step) => isServiceDrift(step, ownedBefore);
    const writeBack = this.deps.writeBack;
    if (this.opts.drift !== 'propose' || !writeBack) return undefined;
    // Past proposalMaxAge the proposal is given up: this run reverts, and the request is closed after it.
    if (writeBack.expired()) return undefined;
    return writeBack.holds(ownedBefore);
  }

  #reachable(): void {
    if (this.#unreachableSince === null) return;
    this.emit({ event: 'target-recovered', downSince: this.#unreachableSince.toISOString() });
    this.#unreachableSince = null;
  }

  /** manifests-invalid when they become invalid (or the errors change), manifests-recovered when valid again. */
  #manifestsLoaded(diagnostics: readonly Diagnostic[], invalid: boolean): void {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const signature = manifestsSignature(diagnostics);
    const was = this.manifests;
    if (invalid && (was.valid || !was.loaded || was.signature !== signature)) this.emit(manifestsInvalid(diagnostics));
    if (!invalid && was.loaded && !was.valid) this.emit({ event: 'manifests-recovered' });
    this.manifests = { loaded: true, valid: !invalid, errors, signature };
  }
}

/** The code of the run's first failure, as firstFailure words it: a failed step's code, or `refused:<guard>`. */
function firstFailureCode(events: readonly EventBody[]): string {
  for (const e of events) {
    if (e.event === 'failed') return e.code;
    if (e.event === 'refused' && e.guard !== 'prune') return `refused:${e.guard}`;
  }
  return 'ERROR';
}
