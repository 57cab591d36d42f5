/**
 * Leader election for one target (DESIGN §6): replicas compete for the target's writer lease.
 * The holder leads and renews it; the others are standby and try again when the current lease
 * would expire (at the latest every renewal interval), so a dead leader is replaced within the
 * lease time. Leadership ends when the lease is lost; the backend then refuses the old
 * leader's writes (fencing), and this elector competes again.
 */
import { errorMessage } from '../core/errors.js';
import type { TargetLeadership } from '../core/inventory.js';
import type { Logger } from '../log/logger.js';
import type { StateBackend, WriterLease } from './backend.js';

/** Who the target is assigned to: this replica, or another (named, for readiness and logs). */
export type TargetAssignment = { mine: true } | { mine: false; owner: string };

export class LeaseElector implements TargetLeadership {
  #lease: WriterLease | null = null;
  #timer: NodeJS.Timeout | null = null;
  #onChange: (leader: boolean) => void = () => undefined;
  #heldBy = 'not decided yet';
  #decided = false;
  #started = false;
  #stopped = false;
  #attempting = false;

  constructor(
    private readonly backend: Pick<StateBackend, 'tryLease' | 'timing'>,
    readonly target: string,
    private readonly opts: { command: string; logger?: Logger; assignment?: (target: string) => TargetAssignment },
  ) {}

  start(onChange: (leader: boolean) => void): void {
    if (this.#started) return;
    this.#started = true;
    this.#onChange = onChange;
    void this.#attempt();
  }

  isLeader(): boolean {
    return this.#lease !== null && !this.#lease.lost.aborted;
  }

  isStandby(): boolean {
    return this.#decided && !this.isLeader();
  }

  /** The lease the inventory writes under; null on standby. */
  lease(): WriterLease | null {
    return this.isLeader() ? this.#lease : null;
  }

  get signal(): AbortSignal | undefined {
    return this.#lease?.lost;
  }

  describe(): string {
    return this.isLeader()
      ? `this replica leads target '${this.target}'`
      : `target '${this.target}' is led by another obsync (${this.#heldBy})`;
  }

  /** The assignment moved the target to this replica: compete now rather than at the next retry. */
  poke(): void {
    if (!this.#started || this.#stopped || this.isLeader() || this.#attempting) return;
    if (this.#timer) clearTimeout(this.#timer);
    void this.#attempt();
  }

  /**
   * Releases the lease so the replica the target is assigned to can take it (the caller waits for
   * the run to end first); this elector competes again only once the target is assigned back.
   */
  async handOver(): Promise<void> {
    const lease = this.#lease;
    if (!lease || this.#stopped) return;
    this.#lease = null;
    await lease.release();
    this.#heldBy = this.#assignedElsewhere() ?? 'handed over';
    this.opts.logger?.info({ target: this.target, to: this.#heldBy }, 'leadership handed over');
    this.#onChange(false);
    this.#schedule(this.backend.timing.renewMs);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    const lease = this.#lease;
    this.#lease = null;
    await lease?.release();
  }

  /** Why this replica does not compete, when the target is assigned to another. */
  #assignedElsewhere(): string | null {
    const a = this.opts.assignment?.(this.target);
    return a && !a.mine ? a.owner : null;
  }

  async #attempt(): Promise<void> {
    if (this.#stopped) return;
    let retryInMs = this.backend.timing.renewMs;
    const elsewhere = this.#assignedElsewhere();
    if (elsewhere !== null) {
      this.#heldBy = elsewhere;
      this.#decided = true;
      return this.#schedule(retryInMs);
    }
    this.#attempting = true;
    try {
      const attempt = await this.backend.tryLease(this.target, this.opts.command);
      if (this.#stopped) {
        if ('lease' in attempt) await attempt.lease.release();
        return;
      }
      if ('lease' in attempt) return this.#lead(attempt.lease);
      this.#heldBy = attempt.heldBy;
      this.#decided = true;
      retryInMs = attempt.retryInMs;
    } catch (err) {
      this.#heldBy = `unknown: ${errorMessage(err)}`;
      this.opts.logger?.warn({ target: this.target, err: errorMessage(err) }, 'leader election failed');
    } finally {
      this.#attempting = false;
    }
    this.#schedule(retryInMs);
  }

  #lead(lease: WriterLease): void {
    this.#lease = lease;
    this.#decided = true;
    lease.lost.addEventListener('abort', () => this.#lost(lease), { once: true });
    this.opts.logger?.info({ target: this.target }, 'leader elected');
    this.#onChange(true);
  }

  #lost(lease: WriterLease): void {
    if (this.#lease !== lease) return;
    this.#lease = null;
    this.opts.logger?.warn({ target: this.target, err: errorMessage(lease.lost.reason) }, 'leadership lost');
    this.#onChange(false);
    this.#schedule(this.backend.timing.renewMs);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#attempt(), ms);
    this.#timer.unref();
  }
}
