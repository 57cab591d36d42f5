/**
 * A target's `drift: propose` in the daemon (issue 41): after each run, the drift it held back is
 * pulled into the manifests (src/writeback, the engine of `obsync pull`) and handed to the
 * target's Proposer, which opens, updates or closes its one pull or merge request. While a
 * proposal is open, its objects are not put back; a manifest changed in Git since the last apply
 * of an object the proposal carries is not applied either — the proposal names each differing
 * field with both values, and a person decides. Past `proposalMaxAge`, the daemon reverts.
 */
import { relative } from 'node:path';
import { summarize, type Address, type Plan, type PlanStep } from '../core/plan.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import { isServiceDrift } from '../core/drift.js';
import type { InventoryStore } from '../core/inventory.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { AdoptPolicy } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import { pullInput } from '../engine/pull-input.js';
import { proposalBody, type NewObject, type Proposal, type ProposalConflict, type Proposer } from '../proposals/index.js';
import { computePull, filesToWrite, type ReadText } from '../writeback/pull.js';
import type { NewManifest, PullConflict } from '../writeback/result.js';
import type { UnmanagedRule } from '../writeback/selector.js';

export interface WriteBackDeps {
  proposer: Proposer;
  /** The project folder: files are named relative to it in a proposal. */
  root: string;
  /** A manifest file's text (absolute path); undefined when it cannot be read. */
  read: ReadText;
  /**
   * Called once per proposal: the other targets of this process that read the document at (file, line) —
   * edited only when they all ask the same.
   */
  otherReaders?: () => (file: string, line: number) => readonly string[];
  /** A proposal open longer falls back to revert. */
  maxAgeMs?: number | undefined;
  /** writeBack.include: objects made on the service that this rule picks are proposed as new manifests below `dir`. */
  include?: { rule: UnmanagedRule; dir: string } | undefined;
}

/** What the pull of one run reads: the target and what the run planned from. */
export interface ProposeInput {
  target: string;
  port: ServicePort;
  inventory: InventoryStore;
  desired: readonly DesiredResource[];
  manifests?: ManifestFiles | undefined;
  adopt: AdoptPolicy;
  ownersElsewhere?: OwnersElsewhere | undefined;
  plan: Plan;
  held: readonly Address[];
  signal?: AbortSignal;
}

/** The proposal as the status shows it: what the last run made of it. */
export interface ProposalView {
  status: Proposal['status'];
  branch: string;
  url: string | undefined;
  openedAt: string | undefined;
  objects: string[];
  conflicts: number;
}

export class WriteBack {
  #proposal: ProposalView | null = null;

  constructor(
    private readonly deps: WriteBackDeps,
    private readonly now: () => Date,
  ) {}

  /** Every run looks for new objects to propose (writeBack.include), held drift or not. */
  get looksForNew(): boolean {
    return this.deps.include !== undefined;
  }

  /** The open proposal (null: none, or not known yet). */
  get proposal(): ProposalView | null {
    return this.#proposal;
  }

  /** The open proposal is past proposalMaxAge: this run reverts instead of holding. */
  expired(): boolean {
    const opened = this.#proposal?.openedAt === undefined ? Number.NaN : Date.parse(this.#proposal.openedAt);
    const max = this.deps.maxAgeMs;
    return max !== undefined && !Number.isNaN(opened) && this.now().getTime() - opened > max;
  }

  /**
   * The steps this run must not apply: drift (an owned object changed or deleted on the service),
   * and a manifest change to an object the open proposal carries (Git and the service both changed it).
   */
  holds(ownedBefore: ReadonlySet<string>): (step: PlanStep) => boolean {
    const proposed = new Set(this.#proposal?.objects ?? []);
    return (step) => isServiceDrift(step, ownedBefore) || (step.reason === 'spec-changed' && proposed.has(step.address));
  }

  /** Pulls what the run held into the manifests and proposes it; with nothing held, the open proposal is closed. */
  async propose(input: ProposeInput): Promise<Proposal> {
    const held = new Set(input.held);
    const steps = input.plan.steps.filter((s) => held.has(s.address));
    const both = steps.filter((s) => s.reason === 'spec-changed');
    const include = this.deps.include;
    // With an include rule the whole estate is pulled (a new object can appear anywhere); else only what the run held.
    const pulled = steps.length === both.length && !include ? undefined : await this.#pull(input, include ? [] : input.held);
    const created = (pulled?.files ?? []).flatMap((f) => f.created);
    const conflicts = [
      ...(pulled?.conflicts ?? [])
        .filter((c) => !(c.reason === 'manifest-changed' && both.some((s) => s.address === c.address)))
        .map(shown),
      ...both.flatMap((s) => bothChanged(s, input.desired)),
    ].map((c) => ({ ...c, file: c.file === '' ? c.file : relative(this.deps.root, c.file) }));
    const plan = heldPlan(input.plan, steps);
    const proposal = await this.deps.proposer.propose({
      files: pulled ? filesToWrite(pulled).map((f) => ({ file: f.file, before: f.before, after: f.after })) : [],
      body:
        steps.length === 0 && created.length === 0
          ? ''
          : proposalBody(
              input.target,
              plan,
              conflicts,
              created.map((m) => newObject(m, this.deps.root)),
            ),
      objects: [...steps.map((s) => s.address), ...created.map((m) => m.address)],
      conflicts,
    });
    this.#proposal =
      proposal.status === 'closed' || proposal.status === 'none'
        ? null
        : {
            status: proposal.status,
            branch: proposal.branch,
            url: proposal.url,
            openedAt: proposal.openedAt,
            objects: proposal.objects,
            conflicts: proposal.conflicts.length + conflicts.length,
          };
    return proposal;
  }

  async #pull(input: ProposeInput, only: readonly Address[]) {
    const planInput = await pullInput(
      {
        port: input.port,
        inventory: input.inventory,
        desired: input.desired,
        ...(input.manifests ? { manifests: input.manifests } : {}),
        selection: { labels: {}, only },
        prune: false,
        maxDeletes: 0,
        adopt: input.adopt,
        ...(input.ownersElsewhere ? { ownersElsewhere: input.ownersElsewhere } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      },
      { allKinds: this.deps.include !== undefined },
    );
    const include = this.deps.include;
    const target = { target: input.target, adopt: input.adopt, input: planInput, ...(include ? { newManifestsDir: include.dir } : {}) };
    return computePull([target], this.deps.read, {
      prune: true,
      ...(include ? { include: include.rule } : {}),
      ...(this.deps.otherReaders ? { otherReaders: this.deps.otherReaders() } : {}),
    });
  }
}

/** The plan of what the proposal carries: its steps only (what obsync would otherwise put back), nothing of the rest of the run. */
function heldPlan(plan: Plan, steps: PlanStep[]): Plan {
  const { backtest: _backtest, ...rest } = plan;
  return {
    ...rest,
    steps,
    summary: summarize(steps),
    forget: [],
    diagnostics: [],
    errored: false,
    prune: { ...plan.prune, requested: false, candidates: [], refused: [], blocked: [] },
  };
}

function newObject(m: NewManifest, root: string): NewObject {
  return { address: m.address, file: relative(root, m.file), ...(m.adoption.by === 'import' ? { importCommand: m.adoption.command } : {}) };
}

function shown(c: PullConflict): ProposalConflict {
  const values = c.manifest === undefined && c.live === undefined ? '' : ` (manifest: ${json(c.manifest)}, service: ${json(c.live)})`;
  return { address: c.address, file: c.file, line: c.line, path: c.path, message: `${c.message}${values}` };
}

/** Git changed the manifest and the service changed the object: each differing field, both values; no side picked. */
function bothChanged(step: PlanStep, desired: readonly DesiredResource[]): ProposalConflict[] {
  const source = desired.find((r) => r.address === step.address)?.source;
  const at = { address: step.address, file: source?.file ?? '', line: source?.line ?? 1 };
  const decide =
    "the manifest changed in Git since the last apply and the object changed on the service: keep Git's with `obsync apply --only " +
    `${step.address}\`, or the service's by writing its values into the manifest`;
  if (step.changes.length === 0) return [{ ...at, path: 'spec', message: decide }];
  return step.changes.map((c) => ({ ...at, path: c.path, message: `Git: ${json(c.after)}, service: ${json(c.before)} — ${decide}` }));
}

function json(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}
