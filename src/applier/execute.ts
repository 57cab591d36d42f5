/**
 * Executes one plan step through the kind's collection port and records ownership in the
 * inventory. Everything comes from the step (the applier never sees manifests or the live
 * state): the body, what to record, the expected form to re-diff, the backups of a delete.
 */
import { AmbiguousWriteError, ApiError, InvariantError } from '../core/errors.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { LiveObject } from '../core/live.js';
import type { PlanStep } from '../core/plan.js';
import { requireCollection, type CollectionPort } from '../core/ports.js';
import type { Json } from '../core/wire.js';
import type { ManagedKind } from '../kinds/kind.js';
import { managedDefinition } from '../kinds/registry.js';
import { sameJson } from '../planner/diff.js';
import { backupCascade, writeBackup } from './backup.js';
import { newWithKey, unprovenCreate, unprovenError, unprovenReadBack } from './ownership.js';
import type { ApplyContext } from './context.js';
import { resolvePayload } from './resolve.js';
import { entryFor, partIds, recordWritten, storedParts, type Outcome } from './record.js';

export async function executeStep(step: PlanStep, ctx: ApplyContext, backupFolderTime: Date): Promise<Outcome> {
  const def = managedDefinition(step.kind);
  if (!def) throw new InvariantError(`no managed definition for kind ${step.kind}`);
  switch (step.action) {
    case 'noop':
      return noopStep(step, ctx);
    case 'create':
      return createStep(step, def, ctx);
    case 'update':
      return updateStep(step, def, ctx, backupFolderTime);
    case 'delete':
      return deleteStep(step, ctx, backupFolderTime);
  }
}

function port(step: PlanStep, ctx: ApplyContext): CollectionPort {
  return requireCollection(ctx.port, step.kind);
}

async function createStep(step: PlanStep, def: ManagedKind, ctx: ApplyContext): Promise<Outcome> {
  const api = port(step, ctx);
  const body = resolve(step, step.payload ?? {}, ctx);
  if (!def.bodyKey) throw new InvariantError(`${step.kind} is creatable but has no bodyKey: a create could not be proven`);
  const naturalKey = def.bodyKey(body);
  // Written before the POST: if the process dies now, the next run finds the object by natural key
  // (and only while a manifest still declares it) — never one that already had that key.
  const preexisting = ctx.seen.withKey(step.kind, naturalKey);
  await ctx.inventory.put(
    entryFor(step, ctx, { id: null, status: 'pending', naturalKey, ...(preexisting.length > 0 ? { preexisting: [...preexisting] } : {}) }),
  );
  let live: LiveObject;
  let resolvedAmbiguous = false;
  try {
    live = await api.create(body, signalOpt(ctx));
  } catch (err) {
    if (!(err instanceof AmbiguousWriteError)) {
      await ctx.inventory.remove(step.address);
      throw err;
    }
    resolvedAmbiguous = true;
    live = (await findCreated(api, def, step, naturalKey, ctx)) ?? (await api.create(body, signalOpt(ctx)));
  }
  const unproven = unprovenCreate(def, step, naturalKey, live, ctx);
  if (unproven !== null) {
    await ctx.inventory.remove(step.address);
    throw await unprovenError(api, def, step, naturalKey, unproven, ctx);
  }
  // Never on the service's word alone: the object is read back by its id and must be what was sent.
  const readBack = await readBackCreated(api, live.id, ctx);
  const parts = readBack ? storedParts(def, step, readBack) : undefined;
  const differs = unprovenReadBack(def, step, naturalKey, live.id, readBack, ctx, parts);
  if (differs !== null) {
    await ctx.inventory.remove(step.address);
    throw await unprovenError(api, def, step, naturalKey, differs, ctx);
  }
  return recordWritten(def, step, readBack ?? live, ctx, resolvedAmbiguous);
}

/**
 * The created object by its id; null when the service says there is none (a 4xx). Any other
 * failure leaves the step's pending entry in place (the object may well exist: the next run
 * resolves it by natural key, with the same proof) and fails the step.
 */
async function readBackCreated(api: CollectionPort, id: string, ctx: ApplyContext): Promise<LiveObject | null> {
  try {
    return await api.get(id, signalOpt(ctx));
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) return null;
    throw err;
  }
}

/** After a create whose response was lost: the object is there exactly when the natural key finds one new, unowned match. */
async function findCreated(
  api: CollectionPort,
  def: ManagedKind,
  step: PlanStep,
  key: string,
  ctx: ApplyContext,
): Promise<LiveObject | null> {
  const candidates = newWithKey(await api.list(signalOpt(ctx)), def, step, key, ctx);
  if (candidates.length > 1) {
    throw new ApiError({
      method: 'POST',
      path: step.address,
      status: 0,
      retryable: false,
      message:
        `${step.address}: the create's response was lost and ${candidates.length} new objects now match its ` +
        `natural key (${candidates.map((c) => c.id).join(', ')}); resolve by hand`,
    });
  }
  return candidates[0] ?? null;
}

async function updateStep(step: PlanStep, def: ManagedKind, ctx: ApplyContext, backupTime: Date): Promise<Outcome> {
  const id = step.id;
  if (!id) throw new InvariantError(`${step.address}: update without an id`);
  const cascadeBackups = await backupCascade(step, ctx, backupTime);
  const api = port(step, ctx);
  if (step.calls) {
    for (const call of step.calls) await api.call(call.call, id, resolve(step, call.body, ctx), signalOpt(ctx));
    const live =
      step.settle && def.settled
        ? await api.waitUntil(id, (o) => def.settled?.(o) ?? true, signalOpt(ctx))
        : await api.get(id, signalOpt(ctx));
    if (!live)
      throw new ApiError({
        method: 'GET',
        path: step.address,
        status: 404,
        retryable: false,
        message: `${step.address}: the object disappeared during the update`,
      });
    return withBackups(await recordWritten(def, step, live, ctx, false), cascadeBackups);
  }
  const body = resolve(step, step.payload ?? {}, ctx);
  // An object that vanished (deleted by hand, or by the service's cascade on a dashboard update) is
  // created again: its 404 is an answer, not a failed request (the request's span says so too).
  const { payload } = step;
  const recreate = def.creatable && def.recreatePayload && payload ? () => def.recreatePayload?.(payload) : undefined;
  const opts = recreate ? { ...signalOpt(ctx), expected: (a: { status: number }) => a.status === 404 } : signalOpt(ctx);
  try {
    return withBackups(await recordWritten(def, step, await api.update(id, body, opts), ctx, false), cascadeBackups);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && recreate)
      return createStep({ ...step, action: 'create', payload: recreate() }, def, ctx);
    throw err;
  }
}

async function deleteStep(step: PlanStep, ctx: ApplyContext, backupTime: Date): Promise<Outcome> {
  if (!step.id) throw new InvariantError(`${step.address}: delete without an id`);
  const backup = await writeBackup(ctx.inventory, step, step.backup ?? null, backupTime);
  const cascadeBackups = await backupCascade(step, ctx, backupTime);
  await port(step, ctx).delete(step.id, signalOpt(ctx));
  await ctx.inventory.remove(step.address);
  // What the service deleted with it is gone too: forget the entries obsync had for it.
  for (const item of step.cascade ?? [])
    if (item.owned && item.address && ctx.inventory.get(item.address)?.id === item.id) await ctx.inventory.remove(item.address);
  return withBackups({ outcome: 'applied', id: step.id, backup }, cascadeBackups);
}

/** Every object the service deletes along with a step is written to the backups first. */
function withBackups(outcome: Outcome, cascadeBackups: string[]): Outcome {
  if (cascadeBackups.length > 0) outcome.cascadeBackups = cascadeBackups;
  return outcome;
}

/**
 * An unchanged object: its entry is (re)written only when something differs — an adoption, or
 * what the step says changed (labels, spec hash, fingerprints, tiles). What the step leaves out,
 * the entry keeps.
 */
async function noopStep(step: PlanStep, ctx: ApplyContext): Promise<Outcome> {
  const entry = ctx.inventory.get(step.address);
  const kept = entry?.status === 'owned' && entry.id === step.id ? entry : undefined;
  const fields: Pick<InventoryEntry, 'id' | 'status' | 'naturalKey'> & Partial<InventoryEntry> = {
    id: step.id ?? null,
    status: 'owned',
    naturalKey: step.record?.naturalKey ?? kept?.naturalKey ?? '',
  };
  const tiles = partIds(step) ?? kept?.tiles;
  if (tiles) fields.tiles = tiles;
  if (entry?.nonConvergent) fields.nonConvergent = entry.nonConvergent;
  const next = entryFor(step, ctx, fields, entry?.updatedAt, kept);
  // Compared with the entry's own timestamp: only a real difference is written.
  if (!entry || !sameJson(entry as unknown as Json, next as unknown as Json))
    await ctx.inventory.put(entryFor(step, ctx, fields, undefined, kept));
  return step.id ? { outcome: 'unchanged', id: step.id } : { outcome: 'unchanged' };
}

function resolve(step: PlanStep, body: PlanStep['payload'] & object, ctx: ApplyContext) {
  return resolvePayload(body, ctx.ids, ctx.secretValues.get(step.address) ?? new Map<string, Json>(), step.address);
}

function signalOpt(ctx: ApplyContext): { signal?: AbortSignal } {
  return ctx.signal ? { signal: ctx.signal } : {};
}
