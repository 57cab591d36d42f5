/**
 * Steps that cannot be planned this run and what depends on them: updates whose cascade would take
 * what must stay, and objects of one kind that refer to each other in a cycle none of which exists.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { Address, PlanStep } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { ManagedKind } from '../kinds/kind.js';
import { managedDefinition } from '../kinds/registry.js';
import type { Cascades } from './cascade.js';
import { describeItem } from './cascade.js';
import { resourceError } from './resource-error.js';

export interface PlannedUpdate {
  step: PlanStep;
  def: ManagedKind;
  res: DesiredResource;
  pairing: ReadonlyMap<string, string>;
}

/**
 * An update that drops parts (tiles) makes the service delete what hangs on them. Only objects
 * obsync owns and no manifest declares may go that way; anything else blocks the update (an
 * error naming the object and the way out) unless `--prune-cascade`.
 */
export function updateCascades(
  updates: readonly PlannedUpdate[],
  cascades: Cascades,
  allowAll: boolean,
  diagnostics: Diagnostic[],
): Set<Address> {
  const blocked = new Set<Address>();
  for (const { step, def, res, pairing } of updates) {
    if (step.id === undefined || !def.parts) continue;
    const items = cascades.of(def.kind, step.id, def.parts.survivingParts(res.spec, pairing));
    if (items.length === 0) continue;
    step.cascade = items;
    const blocking = allowAll ? [] : items.filter((i) => !i.owned || i.declared);
    if (blocking.length === 0) continue;
    blocked.add(step.address);
    const listed = blocking
      .map((i) => `${describeItem(i)}, ${i.owned ? 'which a manifest declares' : 'which obsync does not own'}`)
      .join('; ');
    const noun = def.parts.noun;
    diagnostics.push(
      resourceError(
        res,
        `not updated: the service would delete ${listed} with this update (its ${noun} is removed or can no longer carry it); ` +
          `remove or move ${blocking.length > 1 ? 'them' : 'it'} by hand first, ` +
          `or run with --prune-cascade to let ${blocking.length > 1 ? 'them' : 'it'} go`,
        'cascade-blocked',
      ),
    );
  }
  return blocked;
}

/**
 * The steps without the blocked ones and the steps that depend on them (each reported). Objects
 * of one kind may depend on one planned after them (sources): repeated until nothing changes.
 */
export function withoutBlocked(
  steps: readonly PlanStep[],
  blocked: Set<Address>,
  desired: readonly DesiredResource[],
  diagnostics: Diagnostic[],
): PlanStep[] {
  if (blocked.size === 0) return [...steps];
  const byAddress = new Map(desired.map((r) => [r.address, r]));
  let kept: PlanStep[] = [...steps];
  for (let before = -1; before !== kept.length; ) {
    before = kept.length;
    const next: PlanStep[] = [];
    for (const step of kept) {
      const dep = step.dependsOn.find((d) => blocked.has(d));
      if (blocked.has(step.address)) continue;
      if (dep) {
        blocked.add(step.address);
        const res = byAddress.get(step.address);
        if (res) diagnostics.push(resourceError(res, `not planned: it depends on ${dep}, which could not be planned`, 'dependency-failed'));
        continue;
      }
      next.push(step);
    }
    kept = next;
  }
  return kept;
}

/**
 * Objects of one kind that refer to each other. A reference to one that exists needs no order
 * (its id is known, and a kind with such references has no parts whose ids an update renews):
 * that dependency goes, so two sources that name each other update in one run. Objects none of
 * which exists that refer to each other in a cycle cannot be created in one run: each is
 * reported and blocked.
 */
export function sameKindCycles(steps: readonly PlanStep[], desired: readonly DesiredResource[], diagnostics: Diagnostic[]): Set<Address> {
  const sameKind = (s: PlanStep) => s.dependsOn.length > 0 && s.dependsOn.some((d) => d.startsWith(`${s.kind}/`));
  const linked = steps.filter(sameKind);
  if (linked.length === 0) return new Set();
  const byAddress = new Map(steps.map((s) => [s.address, s]));
  for (const step of linked) {
    if (managedDefinition(step.kind)?.parts) continue;
    step.dependsOn = step.dependsOn.filter((d) => !(d.startsWith(`${step.kind}/`) && byAddress.get(d)?.id !== undefined));
  }
  const cycles = findCycles(linked.filter(sameKind), byAddress);
  if (cycles.size === 0) return cycles;
  const resources = new Map(desired.map((r) => [r.address, r]));
  for (const address of cycles) {
    const res = resources.get(address);
    const others = (byAddress.get(address)?.dependsOn ?? []).filter((d) => cycles.has(d));
    const message =
      `not planned: it refers to ${others.join(', ')}, which refers back to it, and none of them exists on the target yet; ` +
      'create one without the reference first (one apply), then add the reference';
    if (res) diagnostics.push(resourceError(res, message, 'reference-cycle'));
  }
  return cycles;
}

/** Addresses on a dependency cycle among these steps (a depth-first walk; plans without same-kind references never get here). */
function findCycles(steps: readonly PlanStep[], byAddress: ReadonlyMap<Address, PlanStep>): Set<Address> {
  const onCycle = new Set<Address>();
  const state = new Map<Address, 'open' | 'done'>();
  const path: Address[] = [];
  const visit = (address: Address): void => {
    const seen = state.get(address);
    if (seen === 'done') return;
    if (seen === 'open') {
      for (const a of path.slice(path.indexOf(address))) onCycle.add(a);
      return;
    }
    state.set(address, 'open');
    path.push(address);
    for (const dep of byAddress.get(address)?.dependsOn ?? []) if (byAddress.has(dep)) visit(dep);
    path.pop();
    state.set(address, 'done');
  };
  for (const step of steps) visit(step.address);
  return onCycle;
}
