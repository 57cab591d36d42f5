/**
 * ClickPipes of one hosted service (reference/hosted-api.md §3): create, read, PATCH (patchable
 * fields only, secrets accepted but never returned), delete, advanced settings, scaling (per
 * pipe and the service's CDC pool) and state commands with asynchronous transitions advanced by
 * `tick()`. Every operation validates fully before changing anything.
 */
import { randomUUID } from 'node:crypto';
import type { DomainResult, JsonRecord } from './contract.js';
import type { PipesDomain, PipesDomainOptions } from './hosted-contract.js';
import { badRequest, notFoundJson, ok } from './result.js';
import { parseNewPipe, settledState } from './pipes-create.js';
import type { PipeScaling, StoredPipe } from './pipes-record.js';
import { isDbKind, pipeOutput } from './pipes-record.js';
import { demoPipes } from './pipes-seed.js';
import { isPlainObject, mergeSettings, settingsOutput } from './pipes-settings.js';
import { mappingKey, parseSourcePatch, sameMapping } from './pipes-source.js';
import { DEFAULT_CDC_SCALING, parseCdcScaling, parseScalingPatch, type CdcScaling } from './pipes-scaling.js';
import { createSshKeysDomain } from './pipes-ssh-keys.js';
import { replacedByWorkloadIdentity, sshKeyReferenceProblem, WORKLOAD_IDENTITY, workloadIdentityProblem } from './pipes-source-checks.js';

interface CdcPool {
  current: CdcScaling;
  /** A PATCHed pool that has not propagated yet, and when it will have. */
  pending: { to: CdcScaling; at: string } | null;
}

const PATCHABLE_TOP = new Set(['name', 'source', 'destination', 'fieldMappings', 'settings']);

function restore(snapshot: JsonRecord): StoredPipe[] {
  const pipes = snapshot.pipes;
  if (!Array.isArray(pipes)) throw new Error('pipes snapshot: missing pipes array');
  return structuredClone(pipes) as unknown as StoredPipe[];
}

function restoreCdc(snapshot: JsonRecord | undefined): CdcPool {
  const cdc = snapshot?.cdcScaling;
  return isPlainObject(cdc) ? (structuredClone(cdc) as unknown as CdcPool) : { current: { ...DEFAULT_CDC_SCALING }, pending: null };
}

function checkColumns(raw: unknown): JsonRecord[] | string {
  if (!Array.isArray(raw)) return 'destination.columns must be an array';
  for (const [i, c] of raw.entries()) {
    if (!isPlainObject(c) || typeof c.name !== 'string' || c.name === '' || typeof c.type !== 'string' || c.type === '') {
      return `destination.columns.${i} must be {name, type} with non-empty strings`;
    }
  }
  return (raw as { name: string; type: string }[]).map((c) => ({ name: c.name, type: c.type }));
}

function checkFieldMappings(raw: unknown): JsonRecord[] | string {
  if (!Array.isArray(raw)) return 'fieldMappings must be an array';
  for (const [i, m] of raw.entries()) {
    if (!isPlainObject(m) || typeof m.sourceField !== 'string' || typeof m.destinationField !== 'string') {
      return `fieldMappings.${i} must be {sourceField, destinationField} with strings`;
    }
  }
  return (raw as { sourceField: string; destinationField: string }[]).map((m) => ({
    sourceField: m.sourceField,
    destinationField: m.destinationField,
  }));
}

export function createPipesDomain(opts: PipesDomainOptions): PipesDomain {
  const now = opts.now ?? (() => new Date());
  const transitionMs = opts.transitionMs ?? 300;
  const pipes: StoredPipe[] =
    opts.snapshot !== undefined ? restore(opts.snapshot) : (opts.seed ?? 'demo') === 'demo' ? demoPipes(opts.serviceId) : [];
  const cdc = restoreCdc(opts.snapshot);
  let version = 0;
  const sshKeys = createSshKeysDomain({
    serviceId: opts.serviceId,
    now,
    snapshot: opts.snapshot?.sshKeys,
    changed: () => {
      version += 1;
    },
  });
  /** The pipe that names an SSH key resource (`source.<kind>.sshKeyResourceId`), if any. */
  const pipeUsingKey = (keyId: string): string | undefined => pipes.find((p) => p.source.sshKeyResourceId === keyId)?.name;

  const find = (id: string): StoredPipe | undefined => pipes.find((p) => p.id === id);
  const missing = () => notFoundJson('ClickPipe not found');
  const commit = (p: StoredPipe): DomainResult<JsonRecord> => {
    p.updatedAt = now().toISOString();
    version += 1;
    return ok(pipeOutput(p));
  };
  const startTransition = (p: StoredPipe, during: string, to: string): void => {
    p.state = during;
    p.transition = { to, at: new Date(now().getTime() + transitionMs).toISOString() };
  };

  function patch(id: string, body: unknown): DomainResult<JsonRecord> {
    const p = find(id);
    if (p === undefined) return missing();
    if (!isPlainObject(body)) return badRequest('body must be an object');
    for (const key of Object.keys(body)) {
      if (!PATCHABLE_TOP.has(key)) {
        return badRequest(key === 'scaling' || key === 'state' ? `${key} cannot be changed by PATCH; use /${key}` : `${key} is immutable`);
      }
    }
    const next = structuredClone(p);
    if ('name' in body) {
      if (typeof body.name !== 'string' || body.name.length < 1 || body.name.length > 255)
        return badRequest('name must be a string of 1 to 255 characters');
      next.name = body.name;
    }
    if ('source' in body) {
      const sp = parseSourcePatch(p.kind, body.source);
      if (typeof sp === 'string') return badRequest(sp);
      const editsMappings = sp.add.length > 0 || sp.remove.length > 0;
      if (editsMappings && p.kind === 'postgres' && p.state !== 'Paused') return badRequest('Postgres ClickPipe must be paused to edit');
      Object.assign(next.source, sp.set);
      Object.assign(next.secrets, sp.secrets);
      if (next.source.authentication === WORKLOAD_IDENTITY) {
        // Only what this PATCH sends may conflict; what the pipe had before, the service's own identity replaces.
        const problem = workloadIdentityProblem(p.kind, { type: next.source.type ?? null, ...sp.set }, sp.secrets);
        if (problem !== undefined) return badRequest(problem);
        for (const member of replacedByWorkloadIdentity(p.kind)) {
          delete next.secrets[member];
          if (!(member in sp.set)) delete next.source[member];
        }
      }
      if (Object.keys(sp.settings).length > 0) {
        const cur = isPlainObject(next.source.settings) ? next.source.settings : {};
        next.source.settings = { ...cur, ...sp.settings };
      }
      if (editsMappings) {
        const current = Array.isArray(next.source.tableMappings) ? (next.source.tableMappings as JsonRecord[]) : [];
        for (const r of sp.remove) {
          if (!current.some((m) => sameMapping(m, r)))
            return badRequest(`source.${p.kind}.tableMappingsToRemove: ${mappingKey(r)} is not mapped`);
        }
        const kept = current.filter((m) => !sp.remove.some((r) => sameMapping(m, r)));
        for (const a of sp.add) {
          if (kept.some((m) => sameMapping(m, a)))
            return badRequest(`source.${p.kind}.tableMappingsToAdd: ${mappingKey(a)} is already mapped`);
          kept.push(a);
        }
        next.source.tableMappings = kept;
        // The API resumes the pipe after a table-mapping edit.
        startTransition(next, 'Modifying', 'Running');
      }
    }
    if ('destination' in body) {
      const d = body.destination;
      if (!isPlainObject(d)) return badRequest('destination must be an object');
      for (const key of Object.keys(d)) if (key !== 'columns') return badRequest(`destination.${key} is immutable`);
      if ('columns' in d) {
        if (isDbKind(p.kind)) return badRequest(`destination.columns is not supported for ${p.kind} ClickPipes`);
        const cols = checkColumns(d.columns);
        if (typeof cols === 'string') return badRequest(cols);
        next.destination.columns = cols;
      }
    }
    if ('fieldMappings' in body) {
      if (isDbKind(p.kind)) return badRequest(`fieldMappings is not supported for ${p.kind} ClickPipes`);
      const fm = checkFieldMappings(body.fieldMappings);
      if (typeof fm === 'string') return badRequest(fm);
      next.fieldMappings = fm;
    }
    if ('settings' in body) {
      const merged = mergeSettings(next.settings, body.settings, 'settings.');
      if ('error' in merged) return badRequest(merged.error);
      next.settings = merged.value;
    }
    Object.assign(p, next);
    return commit(p);
  }

  function create(body: unknown): DomainResult<JsonRecord> {
    const parsed = parseNewPipe(body);
    if (typeof parsed === 'string') return badRequest(parsed);
    const problem =
      sshKeyReferenceProblem(parsed.kind, parsed.source, (keyId) => sshKeys.has(keyId)) ??
      workloadIdentityProblem(parsed.kind, parsed.source, parsed.secrets);
    if (problem !== undefined) return badRequest(problem);
    const at = now().toISOString();
    const pipe: StoredPipe = {
      id: randomUUID(),
      serviceId: opts.serviceId,
      state: 'Provisioning',
      createdAt: at,
      updatedAt: at,
      transition: null,
      name: parsed.name,
      kind: parsed.kind,
      scaling: parsed.scaling,
      source: parsed.source,
      secrets: parsed.secrets,
      destination: parsed.destination,
      fieldMappings: parsed.fieldMappings,
      settings: parsed.settings,
    };
    startTransition(pipe, 'Provisioning', settledState(parsed));
    pipes.push(pipe);
    version += 1;
    return ok(pipeOutput(pipe));
  }

  function remove(id: string): DomainResult<JsonRecord> {
    const i = pipes.findIndex((p) => p.id === id);
    if (i < 0) return missing();
    pipes.splice(i, 1);
    version += 1;
    return ok({});
  }

  /** The CDC pool exists once the service has a database pipe. */
  function cdcAvailable(): boolean {
    return pipes.some((p) => isDbKind(p.kind));
  }

  function setState(id: string, body: unknown): DomainResult<JsonRecord> {
    const p = find(id);
    if (p === undefined) return missing();
    const command = isPlainObject(body) ? body.command : undefined;
    if (command !== 'start' && command !== 'stop' && command !== 'resync') return badRequest('command must be one of start, stop, resync');
    if (p.state === 'Completed' && command !== 'resync') return badRequest('A completed ClickPipe only accepts resync');
    const db = isDbKind(p.kind);
    if (command === 'stop') {
      const stopped = db ? 'Paused' : 'Stopped';
      const stopping = db ? 'Pausing' : 'Stopping';
      // Already stopped or stopping: nothing changes.
      if (p.state === stopped || p.state === stopping) return ok(pipeOutput(p));
      startTransition(p, stopping, stopped);
      return commit(p);
    }
    if (command === 'start') {
      if (!['Stopped', 'Paused', 'Failed'].includes(p.state)) return badRequest(`${p.id.slice(0, 8)} ClickPipe is already running`);
      startTransition(p, 'Provisioning', 'Running');
      return commit(p);
    }
    if (p.kind !== 'postgres') return badRequest('resync is only supported for Postgres ClickPipes');
    startTransition(p, 'Resync', 'Running');
    return commit(p);
  }

  return {
    list: () => ok(pipes.map(pipeOutput)),
    get(id) {
      const p = find(id);
      return p === undefined ? missing() : ok(pipeOutput(p));
    },
    create,
    delete: remove,
    patch,
    getSettings(id) {
      const p = find(id);
      return p === undefined ? missing() : ok(settingsOutput(p.settings));
    },
    putSettings(id, body) {
      const p = find(id);
      if (p === undefined) return missing();
      const merged = mergeSettings(p.settings, body);
      if ('error' in merged) return badRequest(merged.error);
      p.settings = merged.value;
      commit(p);
      return ok(settingsOutput(p.settings));
    },
    patchScaling(id, body) {
      const p = find(id);
      if (p === undefined) return missing();
      if (p.scaling === null || isDbKind(p.kind))
        return badRequest(`Scaling is not supported for ${p.kind} ClickPipes; use clickpipesCdcScaling`);
      const parsed = parseScalingPatch(body);
      if (typeof parsed === 'string') return badRequest(parsed);
      const scaling: PipeScaling = { ...p.scaling, ...parsed };
      p.scaling = scaling;
      return commit(p);
    },
    setState,
    getCdcScaling() {
      if (!cdcAvailable()) return badRequest('CDC scaling is available once the service has a database ClickPipe');
      return ok({ ...cdc.current });
    },
    patchCdcScaling(body) {
      if (!cdcAvailable()) return badRequest('CDC scaling is available once the service has a database ClickPipe');
      const parsed = parseCdcScaling(body, cdc.pending?.to ?? cdc.current);
      if (typeof parsed === 'string') return badRequest(parsed);
      cdc.pending = { to: parsed, at: new Date(now().getTime() + transitionMs).toISOString() };
      version += 1;
      return ok({ ...parsed });
    },
    sshKeys: {
      list: () => sshKeys.list(),
      get: (id) => sshKeys.get(id),
      create: (body) => sshKeys.create(body),
      delete: (id) => sshKeys.delete(id, pipeUsingKey),
      validate: (id) => sshKeys.validate(id),
    },
    context() {
      // A sandbox service runs on no GCP project, so it has no workload identity to grant.
      return ok({ gcpWorkloadIdentity: { supported: false, ready: null, principal: null } });
    },
    tick() {
      const t = now().getTime();
      if (cdc.pending !== null && Date.parse(cdc.pending.at) <= t) {
        cdc.current = cdc.pending.to;
        cdc.pending = null;
        version += 1;
      }
      for (const p of pipes) {
        if (p.transition !== null && Date.parse(p.transition.at) <= t) {
          p.state = p.transition.to;
          p.transition = null;
          p.updatedAt = now().toISOString();
          version += 1;
        }
      }
    },
    snapshot: () => ({
      pipes: structuredClone(pipes) as unknown as JsonRecord[],
      cdcScaling: structuredClone(cdc) as unknown as JsonRecord,
      sshKeys: sshKeys.snapshot(),
    }),
    get version() {
      return version;
    },
  };
}
