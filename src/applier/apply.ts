/**
 * Applies a plan, reading nothing but the plan (and the secret values, which never go into one):
 * creates and updates first (dependency order, concurrency-capped, dependants of a failure
 * skipped), then deletes — only when nothing failed, in reverse dependency order, each backed up
 * first with what the service deletes along. Every run records ownership, changes or not.
 * Returns a report; never throws for a failed step.
 */
import type { Telemetry } from '../telemetry/api.js';
import { ATTR, SPAN } from '../telemetry/names.js';
import { LazyIdMap, type IdMap } from '../core/id-map.js';
import { entryAddress, moveRefusal, type InventoryEntry } from '../core/inventory.js';
import { errorMessage, LeaseLostError, ObsyncError } from '../core/errors.js';
import { measuringWaits } from '../remote/waits.js';
import type { Address, PartRef, Plan, PlanStep } from '../core/plan.js';
import type { ApplyContext, ApplyOptions, ApplyReport, ApplyTarget, StepOutcomeKind, StepResult } from './context.js';
import { executeStep } from './execute.js';
import { runScheduled, type StepOutcome } from './schedule.js';

const DONE = (): StepOutcome => ({ status: 'done' });

export async function applyPlan(plan: Plan, target: ApplyTarget, opts: ApplyOptions): Promise<ApplyReport> {
  const stop = stopOnLeaseLoss(opts.signal);
  try {
    return await applyUntilStopped(plan, target, opts, stop);
  } finally {
    stop.dispose();
  }
}

/**
 * The signal that stops starting steps: the caller's, or the first lost writer lease. Every write
 * is fenced anyway; this ends the run at once instead of failing each remaining step in turn.
 */
function stopOnLeaseLoss(parent: AbortSignal | undefined): { signal: AbortSignal; halt(err: unknown): void; dispose(): void } {
  const controller = new AbortController();
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    halt: (err) => {
      if (err instanceof LeaseLostError && !controller.signal.aborted) controller.abort(err);
    },
    dispose: () => parent?.removeEventListener('abort', follow),
  };
}

async function applyUntilStopped(
  plan: Plan,
  target: ApplyTarget,
  opts: ApplyOptions,
  stop: ReturnType<typeof stopOnLeaseLoss>,
): Promise<ApplyReport> {
  const now = opts.now ?? (() => new Date());
  // Renames first: every later write and id lookup then finds each object under its new address.
  const moves = await recordMoves(plan, target.inventory, opts.refused, now);
  const ctx: ApplyContext = {
    ...target,
    ids: seededIds(plan, target.inventory.entries()),
    answered: new Map(),
    now,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const stopped = stop.signal;
  const results = new Map<Address, StepResult>();
  const startedAt = ctx.now();
  const record = (result: StepResult): void => {
    results.set(result.address, result);
    opts.onStepDone?.(result);
  };
  // Pending entries whose object no manifest declares any more own nothing: forget them.
  for (const address of plan.forget) if (ctx.inventory.get(address)?.status === 'pending') await ctx.inventory.remove(address);

  const run = async (step: PlanStep): Promise<void> => {
    const refusal = opts.refused?.get(step.address) ?? moves.refused.get(step.address);
    if (refusal !== undefined) {
      record({ address: step.address, action: step.action, outcome: 'refused', message: refusal, durationMs: 0 });
      throw new Error(refusal);
    }
    const t0 = performance.now();
    const movedFrom = moves.recorded.get(step.address);
    const moved = movedFrom === undefined ? {} : { movedFrom };
    if (step.action !== 'noop') opts.onStepStart?.(step.address, step.action);
    await measuringWaits(async (waitedMs) => {
      // A step's time includes its requests' waits for the rate limit: each result says how much.
      const timing = () => {
        const waited = waitedMs();
        return { durationMs: Math.round(performance.now() - t0), ...(waited > 0 ? { rateLimitWaitMs: waited } : {}) };
      };
      try {
        const partial = await traced(opts.telemetry, step, () => executeStep(step, ctx, startedAt));
        const parts = step.movedParts && step.movedParts.length > 0 ? { movedParts: step.movedParts } : {};
        record({ address: step.address, action: step.action, ...timing(), ...moved, ...parts, ...partial });
      } catch (err) {
        record({
          address: step.address,
          action: step.action,
          outcome: 'failed',
          message: errorMessage(err),
          code: err instanceof ObsyncError ? err.code : 'ERROR',
          ...timing(),
          ...moved,
        });
        stop.halt(err);
        throw err;
      }
    });
  };

  // Unchanged objects only refresh their inventory entries, without a request. They take no
  // write slot: those the writes depend on go first, the rest run while the writes wait on the
  // rate limit (thousands of them would otherwise queue behind it, or hold it up).
  const writes = plan.steps.filter((s) => s.action === 'create' || s.action === 'update');
  const deletes = plan.steps.filter((s) => s.action === 'delete');
  const needed = new Set(writes.flatMap((s) => s.dependsOn));
  const noops = plan.steps.filter((s) => s.action === 'noop');
  const noopOutcomes = new Map<Address, StepOutcome>();
  const runNoops = (steps: readonly PlanStep[]) => refreshUnchanged(steps, run, noopOutcomes, stopped);
  await runNoops(noops.filter((s) => needed.has(s.address)));
  const [first] = await Promise.all([
    runScheduled(writes, run, { concurrency: opts.concurrency, signal: stopped }, noopOutcomes),
    runNoops(noops.filter((s) => !needed.has(s.address))),
  ]);
  collectSkips(writes, first, results, record);
  const why = stopReason(stopped);
  for (const step of noops)
    if (!results.has(step.address))
      record({ address: step.address, action: 'noop', outcome: 'skipped', message: why, durationMs: 0, notStarted: true });

  let pruneSkipped: string | undefined;
  const failures = [...results.values()].filter((r) => r.outcome === 'failed' || r.outcome === 'refused').length;
  if (deletes.length > 0 && (failures > 0 || stopped.aborted)) {
    pruneSkipped = stopped.aborted ? why : `${failures} step(s) failed: no deletes in a run with a failure`;
    for (const step of deletes)
      record({
        address: step.address,
        action: 'delete',
        outcome: 'skipped',
        message: pruneSkipped,
        durationMs: 0,
        ...(stopped.aborted ? { notStarted: true as const } : {}),
      });
  } else if (deletes.length > 0) {
    // One at a time, in the planned order (alerts before the dashboards they sit on).
    const second = await runScheduled(deletes, run, { concurrency: 1, signal: stopped });
    collectSkips(deletes, second, results, record);
  }
  await ctx.inventory.flush();

  const ordered = plan.steps.map((s) => results.get(s.address)).filter((r): r is StepResult => r !== undefined);
  // Stopped, and not by a lost lease (that is a failure, said as one): the run was interrupted.
  const interrupted = stopped.aborted && !(stopped.reason instanceof LeaseLostError);
  return {
    target: plan.target,
    results: ordered,
    summary: countOutcomes(ordered),
    ...(pruneSkipped ? { pruneSkipped } : {}),
    ...(interrupted ? { interrupted: true } : {}),
  };
}

function stopReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof LeaseLostError ? `not started: ${reason.message}` : 'the run was interrupted';
}

interface RecordedMoves {
  /** New address → old address of each rename recorded in the inventory. */
  recorded: Map<Address, Address>;
  /** Steps whose rename could not be recorded, with why (they are refused, nothing is sent for them). */
  refused: Map<Address, string>;
}

/**
 * Records the plan's renames in the inventory (under the writer lease, like every inventory
 * write). A rename already recorded (a plan applied twice) is fine; one the inventory no longer
 * allows (the state changed since the plan) refuses its step.
 */
async function recordMoves(
  plan: Plan,
  inventory: ApplyTarget['inventory'],
  refused: ReadonlyMap<Address, string> | undefined,
  now: () => Date,
): Promise<RecordedMoves> {
  const out: RecordedMoves = { recorded: new Map(), refused: new Map() };
  for (const step of plan.steps) {
    const from = step.movedFrom;
    if (from === undefined || refused?.has(step.address)) continue;
    const there = inventory.get(step.address);
    if (!inventory.get(from) && there && there.id === (step.id ?? there.id)) continue;
    const refusal = moveRefusal(inventory, from, step.address);
    if (refusal) {
      out.refused.set(step.address, `the rename from ${from} could not be recorded: ${refusal.message}; make a new plan`);
      continue;
    }
    await inventory.move(from, step.address, now().toISOString());
    out.recorded.set(step.address, from);
  }
  return out;
}

/**
 * The applier's own id map: the inventory's owned objects (as they are when the apply starts:
 * the entries are frozen, their list is taken then), then every object the plan matched (its
 * steps' ids, which win); creates complete it as they land. Built when first used: a run that
 * writes nothing (a daemon's run over an unchanged estate) needs no id.
 */
function seededIds(plan: Plan, inventory: readonly InventoryEntry[]): IdMap {
  return new LazyIdMap((ids) => seedIds(plan, inventory, ids));
}

function seedIds(plan: Plan, inventory: readonly InventoryEntry[], ids: IdMap): void {
  const entries = new Map(inventory.map((e) => [entryAddress(e), e]));
  for (const s of plan.steps) {
    if (s.id === undefined || s.action === 'delete') continue;
    const entry = entries.get(s.address);
    // A step restates its parts only when they differ from its entry's.
    const parts = s.parts ? partsOf(s.parts) : entry?.id === s.id && entry.tiles ? new Map(Object.entries(entry.tiles)) : undefined;
    ids.set(s.address, s.kind, s.id, parts);
  }
  for (const [address, e] of entries)
    if (e.status === 'owned' && e.id !== null && ids.id(address) === undefined)
      ids.set(address, e.kind, e.id, e.tiles ? new Map(Object.entries(e.tiles)) : undefined);
}

function partsOf(parts: readonly PartRef[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of parts) if (p.id !== undefined) out.set(p.key, p.id);
  return out;
}

/** Runs unchanged steps one by one, yielding to I/O now and then so that paced writes go on meanwhile. */
async function refreshUnchanged(
  steps: readonly PlanStep[],
  run: (step: PlanStep) => Promise<void>,
  outcomes: Map<Address, StepOutcome>,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if (signal?.aborted) return;
    outcomes.set(step.address, await run(step).then(DONE, (error: unknown) => ({ status: 'failed', error }) as const));
    if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
}

function collectSkips(
  steps: readonly PlanStep[],
  outcomes: Awaited<ReturnType<typeof runScheduled>>,
  results: Map<Address, StepResult>,
  record: (r: StepResult) => void,
): void {
  for (const step of steps) {
    const outcome = outcomes.get(step.address);
    if (outcome?.status === 'skipped' && !results.has(step.address))
      record({
        address: step.address,
        action: step.action,
        outcome: 'skipped',
        message: outcome.reason,
        durationMs: 0,
        ...(outcome.stopped ? { notStarted: true as const } : {}),
      });
  }
}

function countOutcomes(results: readonly StepResult[]): Record<StepOutcomeKind, number> {
  const counts: Record<StepOutcomeKind, number> = { applied: 0, unchanged: 0, failed: 0, skipped: 0, refused: 0 };
  for (const r of results) counts[r.outcome] += 1;
  return counts;
}

/**
 * The step's span when telemetry is on (its requests are its children); the step alone otherwise. An
 * unchanged object's step sends nothing (it refreshes the inventory): it gets no span, or a steady run
 * over 1,000 objects would export 1,000 spans that say nothing; the apply span counts them (obsync.unchanged).
 */
function traced<T>(telemetry: Telemetry | undefined, step: PlanStep, execute: () => Promise<T>): Promise<T> {
  if (telemetry?.enabled !== true || step.action === 'noop') return execute();
  return telemetry.span(SPAN.applyStep, { [ATTR.address]: step.address, [ATTR.action]: step.action }, execute);
}
