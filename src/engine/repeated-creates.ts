/**
 * A daemon that would create the same address run after run stops (issue 50). When a service
 * loses what obsync creates — drops it later, or hides it from its list and its GET by id at once
 * (then the create is not proven and records nothing) — every run finds the object missing and
 * creates it again: copies pile up. A daemon remembers, per target, the addresses it sent a
 * create for in each of its last runs (proven or not); one sent in each of the last CREATE_LIMIT
 * runs is not created again, and its plan reports it as non-convergent instead, until the object
 * is found, its manifest changes, or the daemon restarts. One-off commands (plan, apply) keep no
 * such memory.
 */
import type { ApplyReport, StepResult } from '../applier/context.js';
import { OWNERSHIP_UNPROVEN } from '../applier/ownership.js';
import type { Address, Plan } from '../core/plan.js';

/** Consecutive runs that created an address before the next create of it is refused. */
export const CREATE_LIMIT = 2;

/** The plan diagnostic of a create refused here (planner/plan-resource.ts), told as a non-convergent event (events/derive.ts). */
const REPEATED_CREATE = 'non-convergent';

interface Streak {
  runs: number;
  /** The spec the creates sent: a changed manifest starts over. */
  specHash: string | undefined;
}

export class RepeatedCreates {
  readonly #streaks = new Map<Address, Streak>();

  /** Addresses not to create again, with the spec hash they were created with. */
  refused(): ReadonlyMap<Address, string | undefined> {
    const out = new Map<Address, string | undefined>();
    for (const [address, streak] of this.#streaks) if (streak.runs >= CREATE_LIMIT) out.set(address, streak.specHash);
    return out;
  }

  /** After an apply run: its creates sent extend their streaks; an address it did not create (nor refused) starts over. */
  record(plan: Plan, apply: ApplyReport): void {
    const created = new Map<Address, string | undefined>();
    const steps = new Map(plan.steps.map((s) => [s.address, s]));
    for (const r of apply.results) if (createSent(r)) created.set(r.address, steps.get(r.address)?.record?.specHash);
    const refused = new Set(plan.diagnostics.filter((d) => d.code === REPEATED_CREATE).map((d) => d.address));
    for (const address of [...this.#streaks.keys()]) if (!created.has(address) && !refused.has(address)) this.#streaks.delete(address);
    for (const [address, specHash] of created) {
      const before = this.#streaks.get(address);
      const runs = before && before.specHash === specHash ? before.runs + 1 : 1;
      this.#streaks.set(address, { runs, specHash });
    }
  }
}

/** A create the service answered: proven (applied), or answered with what obsync could not prove it made. */
function createSent(r: StepResult): boolean {
  return r.action === 'create' && (r.outcome === 'applied' || (r.outcome === 'failed' && r.code === OWNERSHIP_UNPROVEN));
}
