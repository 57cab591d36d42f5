/**
 * Pipes (hosted-api §3): obsync manages existing pipes, never creates or deletes them, and
 * owns only the fields a manifest declares. Write-only values (credentials, keys) are compared
 * by the fingerprint of what obsync last sent, so an unchanged secret is never re-sent and a
 * rotated one is.
 */
import type { PipeCalls } from '../../core/plan.js';
import type { Json, JsonObject, WirePipe } from '../../core/wire.js';
import { definedOnly } from '../defined.js';
import type { Canonical, KindDefinition } from '../kind.js';
import type { PipeSourceKind, PipeSpecView } from './model.js';
import { parseCount, parseGigabytes, parseMillicores } from './quantity.js';

type Obj = { [k: string]: Json };

const STOPPED_STATES = new Set(['Stopped', 'Stopping', 'Paused', 'Pausing']);
const RUNNING_STATES = new Set(['Running', 'Provisioning', 'Setup', 'Snapshot', 'Modifying', 'Resync', 'Unknown']);

/** The desired-state vocabulary (running | stopped) for a live state; other states keep their own name. */
export function stateOf(live: string): string {
  if (RUNNING_STATES.has(live)) return 'running';
  if (STOPPED_STATES.has(live)) return 'stopped';
  return live.toLowerCase();
}

export const pipeDefinition: KindDefinition<PipeSpecView, WirePipe> = {
  kind: 'Pipe',
  rank: 0,
  creatable: false,
  deletable: false,
  liveObjects: (live) => live.pipes,
  dependencies: () => [],
  desiredKey: (res) => (res.spec.id !== undefined ? `id:${res.spec.id}` : `name:${res.spec.name ?? ''}`),
  liveKey: (live) => [`id:${live.id}`, `name:${live.name}`],

  canonicalDesired(res, _lookups, fingerprints): Canonical {
    return { ok: true, value: desiredCanonical(res.spec, fingerprints) };
  },

  canonicalLive(live, { entry }, res) {
    if (!res) return { name: live.name, state: stateOf(live.state) };
    return liveCanonical(res.spec, live, entry?.secrets ?? {});
  },

  updateCalls(res, _live, _ctx, fingerprints, changedPaths) {
    return { pipe: pipeCalls(res.spec, desiredCanonical(res.spec, fingerprints), changedPaths) };
  },

  notes(res, live) {
    if (!res || !live || !res.spec.source) return [];
    const declared = Object.keys(res.spec.source);
    const actual = Object.entries(live.source).find(([, v]) => v !== null && v !== undefined)?.[0];
    return actual && !declared.includes(actual) ? [`the pipe's source is ${actual}, but the manifest declares ${declared.join(', ')}; the service will reject the change`] : [];
  },
};

function desiredCanonical(spec: PipeSpecView, fingerprints: Record<string, string>): Obj {
  const out: Obj = {};
  if (spec.id !== undefined && spec.name !== undefined) out.name = spec.name;
  if (spec.state) out.state = spec.state;
  if (spec.settings) out.settings = definedOnly(spec.settings);
  if (spec.scaling) out.scaling = definedOnly(spec.scaling);
  if (spec.source) {
    const source: Obj = {};
    for (const [kind, members] of Object.entries(spec.source)) if (members) source[kind] = definedOnly(members);
    out.source = source;
  }
  if (spec.destination) out.destination = { columns: spec.destination.columns };
  if (spec.fieldMappings) out.fieldMappings = spec.fieldMappings;
  for (const [path, fp] of Object.entries(fingerprints)) setAt(out, path.split('.'), { $sensitive: fp });
  return out;
}

function liveCanonical(spec: PipeSpecView, live: WirePipe, secrets: Record<string, string>): Obj {
  const out: Obj = {};
  if (spec.id !== undefined && spec.name !== undefined) out.name = live.name;
  if (spec.state) out.state = stateOf(live.state);
  if (spec.settings) out.settings = Object.fromEntries(Object.keys(definedOnly(spec.settings)).map((k) => [k, live.settings?.[k] ?? null]));
  if (spec.scaling) out.scaling = Object.fromEntries(Object.keys(definedOnly(spec.scaling)).map((k) => [k, liveScaling(live, k)]));
  if (spec.source) {
    const source: Obj = {};
    for (const [kind, members] of Object.entries(spec.source)) {
      if (!members) continue;
      const liveMembers = live.source[kind];
      const liveObj = typeof liveMembers === 'object' && liveMembers !== null && !Array.isArray(liveMembers) ? liveMembers : {};
      source[kind] = Object.fromEntries(
        Object.keys(definedOnly(members)).map((m) => {
          const fp = secrets[`source.${kind}.${m}`];
          return [m, fp !== undefined ? { $sensitive: fp } : (liveObj[m] ?? null)];
        }),
      );
    }
    out.source = source;
  }
  if (spec.destination) out.destination = { columns: live.destination?.columns ?? null };
  if (spec.fieldMappings) out.fieldMappings = live.fieldMappings ?? null;
  return out;
}

function liveScaling(live: WirePipe, key: string): Json {
  const raw = live.scaling?.[key];
  const value = raw as number | string | null | undefined;
  if (key === 'replicaCpuMillicores') return parseMillicores(value);
  if (key === 'replicaMemoryGb') return parseGigabytes(value);
  return parseCount(value);
}

function setAt(target: Obj, path: string[], value: Json): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const next = target[head];
  if (typeof next !== 'object' || next === null || Array.isArray(next)) return;
  setAt(next, rest, value);
}

/** Only the calls whose members changed, each with only the changed members. */
function pipeCalls(spec: PipeSpecView, desired: Obj, changedPaths: readonly string[]): PipeCalls {
  const calls: PipeCalls = {};
  const patch: JsonObject = {};
  const top = (p: string) => p.split(/[.[]/)[0] ?? '';
  const changed = (field: string) => changedPaths.some((p) => top(p) === field);
  if (changed('name') && spec.name !== undefined) patch.name = spec.name;
  const source = sourcePatch(desired, changedPaths);
  if (source) patch.source = source;
  if (changed('destination') && spec.destination) patch.destination = { columns: spec.destination.columns };
  if (changed('fieldMappings') && spec.fieldMappings) patch.fieldMappings = spec.fieldMappings;
  if (Object.keys(patch).length > 0) calls.patch = patch;
  const settings = membersChanged(desired.settings, 'settings', changedPaths);
  if (settings) calls.settings = settings;
  const scaling = membersChanged(desired.scaling, 'scaling', changedPaths);
  if (scaling) calls.scaling = scaling;
  if (changed('state') && spec.state) calls.state = spec.state === 'running' ? 'start' : 'stop';
  return calls;
}

function membersChanged(desired: Json | undefined, field: string, changedPaths: readonly string[]): JsonObject | null {
  if (typeof desired !== 'object' || desired === null || Array.isArray(desired)) return null;
  const out: JsonObject = {};
  for (const p of changedPaths) {
    const member = p.startsWith(`${field}.`) ? p.slice(field.length + 1).split(/[.[]/)[0] : undefined;
    const value = member === undefined ? undefined : desired[member];
    if (member !== undefined && value !== undefined) out[member] = value;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * Changed source members; a database pipe's connection fields go with its credentials, because
 * the service re-validates the connection and fails without them (hosted-api §3.6).
 */
function sourcePatch(desired: Obj, changedPaths: readonly string[]): JsonObject | null {
  const source = desired.source;
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return null;
  const out: JsonObject = {};
  for (const [kind, members] of Object.entries(source)) {
    const changed = membersChanged(members, `source.${kind}`, changedPaths);
    if (!changed) continue;
    const all = members as Obj;
    if ((kind as PipeSourceKind) === 'postgres' && all.credentials !== undefined) changed.credentials = all.credentials;
    out[kind] = changed;
  }
  return Object.keys(out).length > 0 ? out : null;
}
