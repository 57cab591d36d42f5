/**
 * The two halves of a reconcile pass for one target: read the live state and plan against the
 * manifests and the inventory (`makePlan`), and execute a plan (`applyPlanned`). `reconcile()`
 * (./reconcile.ts) runs them for plan, apply and the daemon alike.
 */
import { createHash } from 'node:crypto';
import type { InventoryStore } from '../core/inventory.js';
import type { Address, AdoptPolicy, Kind, Plan } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import type { ReadBefore } from '../core/live.js';
import type { Json } from '../core/wire.js';
import { applyPlan } from '../applier/apply.js';
import type { ApplyReport, StepResult } from '../applier/context.js';
import { SENSITIVE_PATHS } from '../kinds/sensitive-paths.js';
import { KEY_PROBE } from '../planner/memo.js';
import { planWithSubjects, type PlanInput } from '../planner/plan.js';
import type { BacktestSubject } from '../planner/backtest-subjects.js';
import type { KindDefinition } from '../kinds/kind.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { ListGap, LiveState } from '../core/live.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { DashboardPreviewInput } from '../core/preview.js';
import { BACKTEST_DEFAULTS, runBacktests, type BacktestOptions } from './backtest.js';
import { dashboardPreviewInputs } from './previews.js';
import { fillPreviewData, type PreviewDataOptions } from './preview-data.js';
import type { KeptPlan, PlanInputs } from './last-plan.js';
import { declaringFiles } from './declaring-files.js';
import { confirmOmitted } from './list-gaps.js';
import { kindsToRead, neededKinds, readBefore, readLive } from './live.js';
import type { RunMemo } from './memo.js';
import { extractSecrets, valueFingerprint, type SensitivePaths } from './secrets.js';
import { pruneEligibility, selectedAddresses, type Selection } from './selection.js';
import { NO_TELEMETRY, type Telemetry } from '../telemetry/api.js';
import { ATTR, SPAN } from '../telemetry/names.js';

export interface PlanRequest {
  port: ServicePort;
  inventory: InventoryStore;
  desired: readonly DesiredResource[];
  /** The files they were loaded from that declare nothing, and the project folder (absent: no file is recorded or checked). */
  manifests?: ManifestFiles;
  /** Defaults to the marks in the kinds' schemas. */
  sensitive?: SensitivePaths;
  selection: Selection;
  prune: boolean;
  /** `--prune-cascade`: deletes and updates may take along objects obsync does not own. */
  pruneCascade?: boolean;
  /** `--allow-empty-kind`: kinds whose last owned objects may be pruned. */
  allowEmptyKinds?: readonly Kind[];
  maxDeletes: number;
  /** Reasons this run must not prune (e.g. invalid manifests kept from the last good state). */
  pruneBlockers?: readonly string[];
  /** The target's adoption policy (default by-name). */
  adopt?: AdoptPolicy;
  /** What this target's last runs found unchanged (the daemon's, one per target): read and renewed by this plan. */
  memo?: RunMemo;
  /** The objects the other targets on this target's service own: never adopted, imported or pruned here. */
  ownersElsewhere?: OwnersElsewhere;
  /** Backtest the alerts the plan creates or updates (and those its changes touch); absent: off. */
  backtest?: Omit<BacktestOptions, 'signal'>;
  /** Keep each unchanged object's form in the plan (a JSON plan shows every object's values). */
  unchangedForms?: boolean;
  /** `plan --preview-dir`: keep what the dashboard previews draw (./previews.ts); 'layout': without their tiles' data. */
  previews?: boolean | 'layout';
  signal?: AbortSignal;
  /** obsync's telemetry: spans for reading the live state, planning, backtests and previews. */
  telemetry?: Telemetry;
}

export interface Planned {
  plan: Plan;
  /** Sensitive values by fingerprint, per address: the applier's only input besides the plan. */
  secretValues: ReadonlyMap<Address, ReadonlyMap<string, Json>>;
  /** What this run read before it writes: an id in it is never owned through a create. */
  seen: ReadBefore;
  timings: { readMs: number; planMs: number; backtestMs: number };
  /** The last plan, taken whole: nothing it was made from had changed (./last-plan.ts). */
  taken?: true;
  /** `previews` asked: the dashboards the plan creates or updates, before and after. */
  previews?: DashboardPreviewInput[];
}

export async function makePlan(req: PlanRequest): Promise<Planned> {
  const t0 = performance.now();
  const inventory = req.inventory.entries();
  const kinds = kindsToRead(req.port, neededKinds(req.desired, inventory));
  const telemetry = req.telemetry ?? NO_TELEMETRY;
  const { live, gaps } = await telemetry.span(SPAN.readLive, { [ATTR.target]: req.port.target }, async () => {
    const read = await readLive(req.port, kinds, { signal: req.signal, memo: req.memo });
    // An owned object a list left out is looked up by its id before anything may be created in its place.
    return confirmOmitted(req.port, kinds, read, inventory, req.signal ? { signal: req.signal } : {});
  });
  const t1 = performance.now();
  const sensitive = req.sensitive ?? SENSITIVE_PATHS;
  const inputs = req.memo ? planInputs(req, sensitive, kinds, live, inventory, gaps) : undefined;
  const again = inputs ? req.memo?.last.take(inputs) : undefined;
  let planned: KeptPlan;
  let subjects: BacktestSubject[] = [];
  if (again) planned = again;
  else {
    const made = telemetry.span(SPAN.plan, {}, (span) => {
      const fresh = planAfresh(req, sensitive, live, inventory, gaps);
      span.setAttributes({ [ATTR.changes]: fresh.plan.steps.filter((s) => s.action !== 'noop').length });
      return fresh;
    });
    subjects = made.subjects;
    planned = inputs && req.memo ? req.memo.last.keep(inputs, made, req.backtest ? subjects.length : 0) : made;
  }
  const t2 = performance.now();
  const backtest = req.backtest;
  if (backtest)
    await telemetry.span(SPAN.backtest, {}, () =>
      runBacktests(planned.plan, subjects, req.port.charts, req.port.variant, {
        ...backtest,
        ...(req.signal ? { signal: req.signal } : {}),
      }),
    );
  const previews = req.previews ? dashboardPreviewInputs(planned.plan, live) : undefined;
  // The daemon asks for previews every run: a plan that changes no dashboard has no span for them.
  if (previews && previews.length > 0 && req.previews !== 'layout')
    await telemetry.span(SPAN.preview, {}, () => fillPreviewData(previews, previewDataOptions(req, planned.plan)));
  const timings = { readMs: t1 - t0, planMs: t2 - t1, backtestMs: performance.now() - t2 };
  return {
    plan: planned.plan,
    secretValues: planned.secretValues,
    seen: readBefore(live, kinds),
    timings,
    ...(again ? { taken: true as const } : {}),
    ...(previews ? { previews } : {}),
  };
}

/** The previews' data requests share the plan's backtest budget: what the backtests left. */
function previewDataOptions(req: PlanRequest, plan: Plan): PreviewDataOptions {
  const budget = (req.backtest?.budget ?? BACKTEST_DEFAULTS.budget) - (plan.backtest?.requests ?? 0);
  return {
    charts: req.port.charts,
    variant: req.port.variant,
    budget,
    now: req.backtest?.now ?? new Date(),
    ...(req.signal ? { signal: req.signal } : {}),
  };
}

function planAfresh(
  req: PlanRequest,
  sensitive: SensitivePaths,
  live: LiveState,
  inventory: readonly InventoryEntry[],
  gaps: readonly ListGap[],
): KeptPlan & { subjects: BacktestSubject[] } {
  const { input, secretValues } = planInputOf(req, live, inventory, gaps, sensitive);
  const { plan, subjects } = planWithSubjects(input);
  return { plan, secretValues, subjects };
}

/**
 * What the planner is given for this request against a live state already read (pure from here):
 * `makePlan` plans it; `obsync pull` plans it and compares edited manifests in the same context.
 */
export function planInputOf(
  req: Omit<PlanRequest, 'port'> & { port: Pick<ServicePort, 'target' | 'variant'> },
  live: LiveState,
  inventory: readonly InventoryEntry[],
  gaps: readonly ListGap[] = [],
  sensitive: SensitivePaths = req.sensitive ?? SENSITIVE_PATHS,
): { input: PlanInput; secretValues: Planned['secretValues'] } {
  const secrets = extractSecrets(req.desired, sensitive, req.inventory);
  const refusedCreates = req.memo?.creates.refused();
  const selected = selectedAddresses(req.desired, req.selection);
  const input: PlanInput = {
    target: req.port.target,
    variant: req.port.variant,
    desired: req.desired,
    ...(req.manifests ? { declaringFiles: declaringFiles(req.manifests) } : {}),
    ...(selected ? { selected } : {}),
    eligibleForPrune: pruneEligibility(req.selection),
    live,
    inventory,
    ...(req.inventory.skipped().length > 0 ? { skipped: req.inventory.skipped() } : {}),
    specHashes: secrets.specHashes,
    fingerprints: secrets.fingerprints,
    fingerprint: secrets.fingerprint,
    prune: req.prune,
    pruneCascade: req.pruneCascade ?? false,
    ...(req.allowEmptyKinds && req.allowEmptyKinds.length > 0 ? { allowEmptyKinds: req.allowEmptyKinds } : {}),
    maxDeletes: req.maxDeletes,
    ...(req.pruneBlockers ? { pruneBlockers: req.pruneBlockers } : {}),
    ...(req.adopt ? { adopt: req.adopt } : {}),
    ...(req.memo ? { memo: req.memo.plan } : {}),
    ...(req.unchangedForms ? { unchangedForms: true } : {}),
    ...(gaps.length > 0 ? { listGaps: gaps } : {}),
    ...(refusedCreates && refusedCreates.size > 0 ? { refusedCreates } : {}),
    ...(req.ownersElsewhere && req.ownersElsewhere.size > 0 ? { ownersElsewhere: req.ownersElsewhere } : {}),
  };
  return { input, secretValues: secrets.values };
}

/** Everything a plan is made from, for the daemon's next run to recognise (./last-plan.ts). */
function planInputs(
  req: PlanRequest,
  sensitive: SensitivePaths,
  kinds: readonly KindDefinition[],
  live: LiveState,
  inventory: readonly InventoryEntry[],
  gaps: readonly ListGap[],
): PlanInputs {
  const options = [
    req.port.target,
    req.port.variant,
    // Stands for the fingerprint key: another key fingerprints every sensitive value otherwise.
    valueFingerprint(req.inventory)(KEY_PROBE),
    req.selection,
    req.prune,
    req.pruneCascade ?? false,
    req.allowEmptyKinds ?? [],
    req.maxDeletes,
    req.pruneBlockers ?? [],
    req.inventory.skipped(),
    req.adopt ?? null,
    // A plan kept while backtests were off holds alert changes no backtest ran for.
    req.backtest !== undefined,
    // One kept without the unchanged objects' forms has none to show.
    req.unchangedForms === true,
    // A file that declares nothing now changes what the plan says of the objects it declared.
    req.manifests ?? null,
    // A kind left unread (an idle service's pipes) is not one read empty.
    kinds.map((def) => live.unread?.(def.kind) ?? null),
    gaps,
    [...(req.memo?.creates.refused() ?? [])],
    req.ownersElsewhere ? createHash('sha256').update(req.ownersElsewhere.lines().join('\n')).digest('base64url') : null,
  ];
  return {
    scope: JSON.stringify(options),
    sensitive,
    desired: req.desired,
    live: kinds.map((def) => ({ kind: def.kind, objects: live.objects(def.kind) ?? [] })),
    inventory,
  };
}

export interface ApplyRequest {
  port: ServicePort;
  inventory: InventoryStore;
  concurrency: number;
  now?: () => Date;
  signal?: AbortSignal;
  /** Steps to refuse (saved plan whose object moved), with the reason. */
  refused?: ReadonlyMap<Address, string>;
  onStepStart?: (address: Address, action: string) => void;
  onStepDone?: (result: StepResult) => void;
  telemetry?: Telemetry;
}

/** Executes a plan: nothing but the plan and the secret values go to the applier. */
export function applyPlanned(planned: Pick<Planned, 'plan' | 'secretValues' | 'seen'>, req: ApplyRequest): Promise<ApplyReport> {
  const telemetry = req.telemetry ?? NO_TELEMETRY;
  const changes = planned.plan.steps.filter((s) => s.action !== 'noop').length;
  const attributes = { [ATTR.changes]: changes, [ATTR.unchanged]: planned.plan.steps.length - changes };
  return telemetry.span(SPAN.apply, attributes, () => applyWith(planned, req));
}

function applyWith(planned: Pick<Planned, 'plan' | 'secretValues' | 'seen'>, req: ApplyRequest): Promise<ApplyReport> {
  return applyPlan(
    planned.plan,
    { port: req.port, inventory: req.inventory, secretValues: planned.secretValues, seen: planned.seen },
    {
      concurrency: req.concurrency,
      ...(req.now ? { now: req.now } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      ...(req.refused ? { refused: req.refused } : {}),
      ...(req.onStepStart ? { onStepStart: req.onStepStart } : {}),
      ...(req.onStepDone ? { onStepDone: req.onStepDone } : {}),
      ...(req.telemetry ? { telemetry: req.telemetry } : {}),
    },
  );
}
