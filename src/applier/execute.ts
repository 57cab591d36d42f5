/** Executes one plan step through the ports and records ownership in the inventory. */
import { AmbiguousWriteError, ApiError, InvariantError } from '../core/errors.js';
import type { InventoryEntry } from '../core/inventory.js';
import type { PlanStep } from '../core/plan.js';
import { requireCapability, type CrudPort } from '../core/ports.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json, JsonObject } from '../core/wire.js';
import { sameJson } from '../planner/diff.js';
import { keyMatches } from '../planner/match.js';
import type { KindDefinition } from '../kinds/kind.js';
import { writeBackup } from './backup.js';
import type { ApplyContext, StepResult } from './context.js';
import { resolvePayload } from './resolve.js';
import { verifyWrite } from './verify.js';

type Live = { id: string };
type Partial = Omit<StepResult, 'durationMs' | 'address' | 'action'>;

export async function executeStep(step: PlanStep, ctx: ApplyContext, backupFolderTime: Date): Promise<Partial> {
  const def: KindDefinition<unknown, Live> | undefined = ctx.definitions.get(step.kind);
  if (!def) throw new InvariantError(`no definition for kind ${step.kind}`);
  if (step.action === 'delete') return deleteStep(step, def, ctx, backupFolderTime);
  const res = ctx.desired.get(step.address);
  if (!res) throw new InvariantError(`${step.address} is not among the desired objects`);
  switch (step.action) {
    case 'noop':
      return noopStep(step, def, res, ctx);
    case 'create':
      return createStep(step, def, res, ctx);
    case 'update':
      return step.pipe ? pipeUpdateStep(step, def, res, ctx) : updateStep(step, def, res, ctx);
  }
}

function crud(step: PlanStep, ctx: ApplyContext): CrudPort<Live> {
  if (step.kind === 'Dashboard') return ctx.port.dashboards;
  if (step.kind === 'Alert') return ctx.port.alerts;
  throw new InvariantError(`${step.kind} has no create/update/delete port`);
}

async function createStep(step: PlanStep, def: KindDefinition<unknown, Live>, res: DesiredResource, ctx: ApplyContext): Promise<Partial> {
  const api = crud(step, ctx);
  const naturalKey = def.desiredKey(res, ctx.lookups) ?? '';
  // Written before the POST: if the process dies now, the next run resolves this entry by natural key.
  await ctx.inventory.put(entryFor(res, ctx, { id: null, status: 'pending', naturalKey }));
  const body = resolvePayload(step.payload ?? {}, ctx.lookups, ctx.secretValues.get(step.address) ?? new Map(), step.address);
  let live: Live;
  let resolvedAmbiguous = false;
  try {
    live = await api.create(body, signalOpt(ctx));
  } catch (err) {
    if (!(err instanceof AmbiguousWriteError)) {
      await ctx.inventory.remove(step.address);
      throw err;
    }
    resolvedAmbiguous = true;
    live = (await findCreated(api, def, res, naturalKey, ctx)) ?? (await api.create(body, signalOpt(ctx)));
  }
  return recordWritten(def, res, live, ctx, { resolvedAmbiguous });
}

/** After a create whose response was lost: the object is there exactly when the natural key finds one unowned match. */
async function findCreated(api: CrudPort<Live>, def: KindDefinition<unknown, Live>, res: DesiredResource, key: string, ctx: ApplyContext): Promise<Live | null> {
  const owned = new Set(ctx.inventory.entries().filter((e) => e.kind === res.kind && e.id !== null).map((e) => e.id));
  const candidates = (await api.list(signalOpt(ctx))).filter((o) => !owned.has(o.id) && keyMatches(def.liveKey(o, ctx.lookups), key));
  if (candidates.length > 1) {
    throw new ApiError({ method: 'POST', path: res.address, status: 0, retryable: false, message: `${res.address}: the create's response was lost and ${candidates.length} objects now match its natural key; resolve by hand` });
  }
  return candidates[0] ?? null;
}

async function updateStep(step: PlanStep, def: KindDefinition<unknown, Live>, res: DesiredResource, ctx: ApplyContext): Promise<Partial> {
  if (!step.id) throw new InvariantError(`${step.address}: update without an id`);
  const body = resolvePayload(step.payload ?? {}, ctx.lookups, ctx.secretValues.get(step.address) ?? new Map(), step.address);
  try {
    const live = await crud(step, ctx).update(step.id, body, signalOpt(ctx));
    return recordWritten(def, res, live, ctx, {});
  } catch (err) {
    // The object vanished (deleted by hand, or by the service's cascade on a dashboard update): create it again.
    if (err instanceof ApiError && err.status === 404 && def.creatable && def.createPayload) {
      const payload = def.createPayload(res, ctx.lookups, ctx.fingerprints.get(step.address) ?? {});
      return createStep({ ...step, action: 'create', payload }, def, res, ctx);
    }
    throw err;
  }
}

async function pipeUpdateStep(step: PlanStep, def: KindDefinition<unknown, Live>, res: DesiredResource, ctx: ApplyContext): Promise<Partial> {
  const id = step.id;
  if (!id) throw new InvariantError(`${step.address}: update without an id`);
  const pipes = requireCapability(ctx.port, 'pipes');
  const calls = step.pipe ?? {};
  const opts = signalOpt(ctx);
  const secrets = ctx.secretValues.get(step.address) ?? new Map<string, Json>();
  if (calls.patch) await pipes.patch(id, resolvePayload(calls.patch, ctx.lookups, secrets, step.address), opts);
  if (calls.settings) await pipes.putSettings(id, calls.settings as Record<string, string | number | boolean | null>, opts);
  if (calls.scaling) await pipes.patchScaling(id, calls.scaling, opts);
  if (calls.state) await pipes.setState(id, calls.state, opts);
  const live = calls.state ? await pipes.waitUntilSettled(id, opts) : await pipes.get(id, opts);
  if (!live) throw new ApiError({ method: 'GET', path: `pipes/${id}`, status: 404, retryable: false, message: `${step.address}: the pipe disappeared during the update` });
  return recordWritten(def, res, live, ctx, {});
}

async function deleteStep(step: PlanStep, def: KindDefinition<unknown, Live>, ctx: ApplyContext, backupTime: Date): Promise<Partial> {
  if (!step.id) throw new InvariantError(`${step.address}: delete without an id`);
  const live = def.liveObjects(ctx.live)?.find((o) => o.id === step.id);
  const backup = await writeBackup(ctx.inventory, step, live ?? null, backupTime);
  await crud(step, ctx).delete(step.id, signalOpt(ctx));
  await ctx.inventory.remove(step.address);
  return { outcome: 'applied', id: step.id, backup };
}

async function noopStep(step: PlanStep, def: KindDefinition<unknown, Live>, res: DesiredResource, ctx: ApplyContext): Promise<Partial> {
  const entry = ctx.inventory.get(step.address);
  const known = ctx.lookups.tileIds.get(step.address);
  const tiles = known ? Object.fromEntries(known) : undefined;
  const fields = {
    id: step.id ?? null,
    status: 'owned' as const,
    naturalKey: def.desiredKey(res, ctx.lookups) ?? '',
    ...(tiles ? { tiles } : {}),
    ...(entry?.nonConvergent ? { nonConvergent: entry.nonConvergent } : {}),
  };
  // Compared with the entry's own timestamp: only a real difference is written.
  if (!entry || !sameJson(entry as unknown as Json, entryFor(res, ctx, fields, entry.updatedAt) as unknown as Json)) await ctx.inventory.put(entryFor(res, ctx, fields));
  return { outcome: 'unchanged', ...(step.id ? { id: step.id } : {}) };
}

async function recordWritten(def: KindDefinition<unknown, Live>, res: DesiredResource, live: Live, ctx: ApplyContext, extra: { resolvedAmbiguous?: boolean }): Promise<Partial> {
  const extras = def.recordWrite?.(res, live, ctx.lookups) ?? {};
  const fingerprints = ctx.fingerprints.get(res.address) ?? {};
  const base = entryFor(res, ctx, { id: live.id, status: 'owned', naturalKey: def.desiredKey(res, ctx.lookups) ?? '', ...extras });
  const verification = verifyWrite(def, res, live, { entry: base, lookups: ctx.lookups }, fingerprints);
  await ctx.inventory.put({ ...base, ...(verification.fields.length > 0 ? { nonConvergent: verification.fields } : {}) });
  return {
    outcome: 'applied',
    id: live.id,
    ...(verification.changes.length > 0 ? { nonConvergent: verification.changes } : {}),
    ...(extra.resolvedAmbiguous ? { resolvedAmbiguous: true } : {}),
  };
}

function entryFor(
  res: DesiredResource,
  ctx: ApplyContext,
  fields: Pick<InventoryEntry, 'id' | 'status' | 'naturalKey'> & globalThis.Partial<InventoryEntry>,
  updatedAt = ctx.now().toISOString(),
): InventoryEntry {
  const specHash = ctx.specHashes.get(res.address);
  const secrets = ctx.fingerprints.get(res.address);
  return {
    kind: res.kind,
    name: res.name,
    ...(Object.keys(res.labels).length > 0 ? { labels: res.labels } : {}),
    ...(specHash ? { specHash } : {}),
    ...(secrets && Object.keys(secrets).length > 0 && fields.status === 'owned' ? { secrets } : {}),
    ...fields,
    updatedAt,
  };
}

function signalOpt(ctx: ApplyContext): { signal?: AbortSignal } {
  return ctx.signal ? { signal: ctx.signal } : {};
}

export type { JsonObject };
