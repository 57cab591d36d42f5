/**
 * `drift: propose` in the daemon: what a run held back goes to the target's proposal (./write-back.ts),
 * and the proposal as the status shows it.
 */
import { errorMessage, ObsyncError } from '../core/errors.js';
import type { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { DesiredResource, ManifestFiles } from '../core/resource.js';
import type { RunReport } from '../engine/reconcile.js';
import type { TargetStatus } from '../events/status-model.js';
import type { EventBody, ProposalOutcome } from '../events/vocabulary.js';
import type { DaemonDeps, DaemonOptions } from './daemon-deps.js';
import type { WriteBack } from './write-back.js';

export class DriftProposal {
  /** The proposal has been looked for since start-up. */
  #looked = false;

  constructor(
    private readonly deps: DaemonDeps,
    private readonly opts: DaemonOptions,
    private readonly emit: (body: EventBody) => void,
    private readonly now: () => Date,
  ) {}

  /**
   * What the run held goes to the target's proposal (opened, updated, or closed when nothing is
   * held). The first run always looks, so a request left open before a restart is found. A failure
   * is returned as the run's failed event: the apply stands, the run fails.
   */
  async propose(run: {
    report: RunReport;
    desired: DesiredResource[];
    manifests: ManifestFiles | undefined;
    ownersElsewhere: OwnersElsewhere | undefined;
    signal: AbortSignal;
  }): Promise<EventBody | undefined> {
    const writeBack = this.deps.writeBack;
    if (this.opts.mode !== 'apply' || this.opts.drift !== 'propose' || !writeBack) return undefined;
    const held = run.report.held ?? [];
    if (held.length === 0 && writeBack.proposal === null && this.#looked && !writeBack.looksForNew) return undefined;
    const before = writeBack.proposal;
    const expired = held.length === 0 && writeBack.expired();
    try {
      const proposal = await writeBack.propose({
        target: this.deps.port.target,
        port: this.deps.port,
        inventory: this.deps.inventory,
        desired: run.desired,
        manifests: run.manifests,
        adopt: this.opts.adopt ?? 'by-name',
        ownersElsewhere: run.ownersElsewhere,
        plan: run.report.plan,
        held,
        signal: run.signal,
      });
      this.#looked = true;
      const news = proposal.status === 'conflicted' ? before?.status !== 'conflicted' : !['unchanged', 'none'].includes(proposal.status);
      if (news)
        this.emit({
          event: 'proposal',
          outcome: proposal.status as ProposalOutcome,
          branch: proposal.branch,
          ...(proposal.url ? { url: proposal.url } : {}),
          objects: proposal.objects,
          conflicts: writeBack.proposal?.conflicts ?? 0,
          ...(expired && proposal.status === 'closed' ? { expired: true } : {}),
        });
      return undefined;
    } catch (err) {
      return { event: 'failed', code: err instanceof ObsyncError ? err.code : 'ERROR', message: `write-back: ${errorMessage(err)}` };
    }
  }

  /** The open proposal as the status shows it; null when there is none. */
  status(writeBack: WriteBack): TargetStatus['proposal'] {
    const p = writeBack.proposal;
    if (!p || p.status === 'closed' || p.status === 'none') return null;
    const opened = p.openedAt === undefined ? Number.NaN : Date.parse(p.openedAt);
    return {
      status: p.status,
      branch: p.branch,
      ...(p.url ? { url: p.url } : {}),
      ...(p.openedAt && !Number.isNaN(opened)
        ? { openedAt: new Date(opened).toISOString(), ageSeconds: Math.max(0, Math.round((this.now().getTime() - opened) / 1000)) }
        : {}),
      objects: p.objects,
      conflicts: p.conflicts,
    };
  }

  /** Why a run that held drift leaves the target drifted. */
  heldReason(held: number): string {
    const proposal = this.deps.writeBack?.proposal;
    if (this.opts.drift !== 'propose') return `${held} object(s) changed on the service: reported, not put back (drift: report)`;
    const where = proposal?.url ?? (proposal ? `branch ${proposal.branch}` : 'no proposal yet');
    return `${held} object(s) changed on the service: proposed to Git (${where}), not put back (drift: propose)`;
  }
}
