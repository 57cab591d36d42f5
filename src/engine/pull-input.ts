/**
 * What `obsync pull` plans against for one target: the live state read as a plan reads it (every
 * kind the manifests declare, every managed kind with --include-unmanaged; owned objects a list
 * left out looked up by id), and the plan's input made from it (./run.ts `planInputOf`).
 */
import type { PlanInput } from '../planner/plan.js';
import { MANAGED } from '../kinds/registry.js';
import { confirmOmitted } from './list-gaps.js';
import { kindsToRead, readLive } from './live.js';
import { planInputOf, type PlanRequest } from './run.js';

export async function pullInput(req: PlanRequest, options: { allKinds: boolean }): Promise<PlanInput> {
  // Unmanaged objects of every kind, but people and roles only where manifests declare some (as export does without --kind).
  const sweep = options.allKinds ? MANAGED.filter((d) => d.exportOnRequest !== true).map((d) => d.kind) : [];
  const needed = new Set<string>([...sweep, ...req.desired.map((r) => r.kind)]);
  const kinds = kindsToRead(req.port, needed);
  const read = await readLive(req.port, kinds, req.signal ? { signal: req.signal } : {});
  const inventory = req.inventory.entries();
  const { live, gaps } = await confirmOmitted(req.port, kinds, read, inventory, req.signal ? { signal: req.signal } : {});
  return planInputOf(req, live, inventory, gaps).input;
}
