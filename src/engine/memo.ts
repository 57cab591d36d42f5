/**
 * What one target's repeated runs keep between them (the daemon holds one per target): each
 * kind's parsed list items by the hash of their raw bytes, the planner's memo of the objects
 * that compared equal, and the last plan with what it was made from. A run given it re-plans an unchanged estate at little more than
 * the cost
 * of reading it; a run without it computes everything (plan, apply and CI runs read once).
 */
import { ItemMemo } from '../core/item-memo.js';
import type { AnyKind } from '../core/kind-name.js';
import { PlanMemo } from '../planner/memo.js';
import { LastPlan } from './last-plan.js';
import { RepeatedCreates } from './repeated-creates.js';

export class RunMemo {
  readonly plan = new PlanMemo();
  /** The last plan, taken as it was when nothing it was made from changed. */
  readonly last = new LastPlan();
  /** The addresses the last runs created, to stop creating one run after run (./repeated-creates.ts). */
  readonly creates = new RepeatedCreates();
  readonly #lists = new Map<AnyKind, ItemMemo>();

  /** The parsed items of one kind's list. */
  list(kind: AnyKind): ItemMemo {
    let memo = this.#lists.get(kind);
    if (!memo) this.#lists.set(kind, (memo = new ItemMemo()));
    return memo;
  }
}
