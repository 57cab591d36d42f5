/**
 * `obsync export --adopt`: obsync takes ownership of every exported object. Each exported
 * manifest is bound to the id it was exported from (so objects that share a display name are
 * adopted too, where matching by natural key would refuse to guess); the tree is then planned
 * against those bindings and must show no change — only then are they recorded, and an apply of
 * the unchanged steps of that same plan records exactly what any apply records: tile keys,
 * spec hashes, secret fingerprints. Nothing is written to the service.
 */
import type { ApplyReport } from '../applier/context.js';
import { entryAddress, type InventoryEntry, type InventoryStore } from '../core/inventory.js';
import { PlanError } from '../core/errors.js';
import { OwnersElsewhere } from '../core/owners-elsewhere.js';
import type { Address, Plan } from '../core/plan.js';
import type { ServicePort } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import { applyPlanned, makePlan } from '../engine/run.js';
import { SELECT_ALL } from '../engine/selection.js';
import type { Kind } from '../kinds/registry.js';

/** An exported object: the address its manifest declares and the id it came from. */
export interface ExportedBinding {
  kind: Kind;
  name: string;
  address: Address;
  id: string;
  naturalKey: string;
}

export interface AdoptRequest {
  port: ServicePort;
  inventory: InventoryStore;
  /** The exported manifests, loaded with their sensitive values (never written anywhere). */
  desired: readonly DesiredResource[];
  exported: readonly ExportedBinding[];
  concurrency: number;
  now: Date;
  /** What the other targets on this target's service own: none of it is adopted. */
  elsewhere?: OwnersElsewhere;
}

/** Refuses (before anything is recorded) when the exported tree would change the service. */
export function refuseChanges(plan: Plan): void {
  const changing = plan.steps.filter((s) => s.action !== 'noop');
  const problems = [
    ...changing.map((s) => `${s.address}: ${s.action} (${s.changes.map((c) => c.path).join(', ') || s.reason})`),
    ...plan.diagnostics.map((d) => `${d.address ?? d.file ?? ''}: ${d.message}`),
  ];
  if (problems.length === 0) return;
  throw new PlanError(`the exported manifests do not plan to zero changes, so nothing was adopted:\n  ${problems.join('\n  ')}`, {
    hint: 'this is a bug in the export of these kinds: please report it; the manifests are written, `obsync plan` shows the same',
  });
}

/**
 * The entries binding exported manifests to their ids; an address already owned by another id, or
 * an object another target on the service owns, is an error (nothing is adopted).
 */
export function bindings(
  exported: readonly ExportedBinding[],
  inventory: InventoryStore,
  now: Date,
  elsewhere = OwnersElsewhere.NONE,
): InventoryEntry[] {
  const out: InventoryEntry[] = [];
  const clashes: string[] = [];
  const owners = new Set<string>();
  for (const b of exported) {
    const owner = elsewhere.owner(b.kind, b.id);
    if (owner) {
      clashes.push(`${b.address}: ${elsewhere.refusal(`the object ${b.id}`, owner)}`);
      owners.add(owner.target);
      continue;
    }
    const current = inventory.get(b.address);
    if (current?.status === 'owned' && current.id === b.id) continue;
    if (current?.status === 'owned' && current.id !== null) {
      clashes.push(`${b.address} is owned with id ${current.id}, but was exported from ${b.id}`);
      continue;
    }
    out.push({ kind: b.kind, name: b.name, id: b.id, status: 'owned', naturalKey: b.naturalKey, updatedAt: now.toISOString() });
  }
  if (clashes.length > 0) {
    const shared = [...owners].map((t) => `'${t}'`).join(', ');
    const hint =
      owners.size > 0
        ? `leave out what ${shared} own${owners.size > 1 ? '' : 's'} (export --kind/--match), or point the targets at different ` +
          `services; \`obsync state rm <address>\` forgets a stale entry`
        : '`obsync state rm <address>` forgets a stale entry';
    throw new PlanError(`nothing was adopted:\n  ${clashes.join('\n  ')}`, { hint });
  }
  return out;
}

/** `bound`: how many exported objects were not owned before (`added`: their entries). */
export async function adoptExported(req: AdoptRequest): Promise<{ report: ApplyReport; bound: number; added: InventoryEntry[] }> {
  const added = bindings(req.exported, req.inventory, req.now, req.elsewhere);
  const planned = await makePlan({
    port: req.port,
    inventory: withEntries(req.inventory, added),
    desired: req.desired,
    selection: SELECT_ALL,
    prune: false,
    maxDeletes: 0,
  });
  refuseChanges(planned.plan);
  for (const entry of added) await req.inventory.put(entry);
  // The inventory now holds what the plan was made against: its unchanged steps record tile keys, spec hashes and fingerprints.
  const report = await applyPlanned(planned, { port: req.port, inventory: req.inventory, concurrency: req.concurrency });
  return { report, bound: added.length, added };
}

/** The inventory as it will be once `added` is recorded, to plan against (read-only: planning never writes). */
function withEntries(inventory: InventoryStore, added: readonly InventoryEntry[]): InventoryStore {
  const byAddress = new Map(added.map((e) => [entryAddress(e), e]));
  const readOnly = (): never => {
    throw new Error('the adoption preview inventory is read-only');
  };
  return {
    target: inventory.target,
    entries: () => [...inventory.entries().filter((e) => !byAddress.has(entryAddress(e))), ...added],
    get: (address) => byAddress.get(address) ?? inventory.get(address),
    skipped: () => inventory.skipped(),
    fingerprint: (value) => inventory.fingerprint(value),
    put: readOnly,
    remove: readOnly,
    move: readOnly,
    flush: readOnly,
    close: readOnly,
    saveBackup: readOnly,
    readNote: (name) => inventory.readNote(name),
    writeNote: readOnly,
    refresh: readOnly,
    writeFence: readOnly,
  };
}
