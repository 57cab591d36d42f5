/**
 * Pipes (hosted-api §3): obsync manages existing pipes, never creates or deletes them, and
 * owns only the fields a manifest declares: the live form is compared in the shape of the
 * desired one. Write-only values (credentials, keys) are compared by the fingerprint of what
 * obsync last sent, so an unchanged secret is never re-sent and a rotated one is. A pipe changes
 * through several calls (patch, settings, scaling, state), each sent only when its part changed.
 */
import type { UpdateCall } from '../../core/plan.js';
import type { DesiredResource } from '../../core/resource.js';
import { wirePipe, type Json, type JsonObject, type WirePipe } from '../../core/wire.js';
import { definedOnly } from '../defined.js';
import type { Canonical, CrossFinding, LiveRef, ManagedKind } from '../kind.js';
import type { PipeSourceKind, PipeSpecView } from './model.js';
import { parseCount, parseGigabytes, parseMillicores } from './quantity.js';
import { pipeSpecSchema, WORKLOAD_IDENTITY } from './schema.js';
import { pipeToManifest } from './export.js';
import { stateOf, TRANSITIONAL } from './states.js';
import { isJsonObject as isObj, ownMember, setOwn } from '../../core/json.js';

type Obj = { [k: string]: Json };

export const pipe: ManagedKind<'Pipe', PipeSpecView, WirePipe> = {
  kind: 'Pipe',
  description:
    'Settings of an existing data-ingestion pipe (hosted variant). obsync never creates or deletes pipes: it owns only the fields ' +
    'declared here.',
  managed: true,
  noun: 'pipe',
  // Only for order: a pipe names an SSH key resource (set at the pipe's create, never by obsync), so keys are deleted after pipes.
  refersTo: ['PipeSshKey'],
  live: wirePipe,
  routes: {
    hosted: {
      api: 'pipes',
      path: '',
      paging: 'none',
      calls: {
        patch: { method: 'PATCH', path: '', idempotent: false },
        settings: { method: 'PUT', path: '/settings', idempotent: true },
        scaling: { method: 'PATCH', path: '/scaling', idempotent: true },
        state: { method: 'PATCH', path: '/state', idempotent: true },
      },
    },
  },
  read: 'when-declared',
  displayName: (live) => live.name,
  liveRefs: sshKeyOf,
  // The service refuses to delete an SSH key resource a pipe names (sshKeyResourceId, set at the pipe's create).
  holds: (body) => (isObj(body.source) ? sshKeyOf({ source: body.source }) : []),
  spec: pipeSpecSchema,
  creatable: false,
  deletable: false,
  references: () => [],
  toManifest: pipeToManifest,
  desiredKey: (res) => keyOfSpec(res.spec),
  liveKey: (live) => [`id:${live.id}`, `name:${live.name}`],

  canonicalDesired(res, _refs, fingerprints): Canonical {
    return { ok: true, value: desiredCanonical(res.spec, fingerprints) };
  },

  canonicalLive(live, { expected, secrets }) {
    return liveCanonical(isObj(expected) ? expected : {}, live, secrets);
  },

  update(res, _live, { fingerprints, changedPaths }) {
    const calls = pipeCalls(res.spec, desiredCanonical(res.spec, fingerprints), changedPaths);
    return { calls, settle: calls.some((c) => c.call === 'state') };
  },

  settled: (live) => !TRANSITIONAL.has(live.state),

  notes(res, live) {
    if (!res.spec.source) return [];
    const declared = Object.keys(res.spec.source);
    const actual = Object.entries(live.source).find(([, v]) => v !== null && v !== undefined)?.[0];
    const wrongKind =
      actual && !declared.includes(actual)
        ? [`the pipe's source is ${actual}, but the manifest declares ${declared.join(', ')}; the service will reject the change`]
        : [];
    const identity = Object.values(res.spec.source).some((m) => m?.authentication === WORKLOAD_IDENTITY)
      ? [
          `the pipe authenticates as the service's own GCP principal (${WORKLOAD_IDENTITY}): grant it access to the source; ` +
            `GET …/clickpipes/context names it and says whether it is ready`,
        ]
      : [];
    return [...wrongKind, ...identity];
  },

  crossCheck: duplicatePipes,
};

/** The SSH key resource a pipe's source names (`source.<kind>.sshKeyResourceId`; Kafka, Postgres, MySQL, MongoDB). */
function sshKeyOf(pipe: { source: { readonly [kind: string]: Json | undefined } }): LiveRef[] {
  return Object.values(pipe.source).flatMap((members) => {
    const id = isObj(members ?? undefined) ? (members as Obj).sshKeyResourceId : undefined;
    return typeof id === 'string' ? [{ kind: 'PipeSshKey' as const, id }] : [];
  });
}

function keyOfSpec(spec: PipeSpecView): string {
  return spec.id !== undefined ? `id:${spec.id}` : `name:${spec.name ?? ''}`;
}

/** One Pipe manifest per pipe: two would fight over the same fields. */
function duplicatePipes(resources: readonly DesiredResource[]): CrossFinding[] {
  const first = new Map<string, DesiredResource>();
  const out: CrossFinding[] = [];
  for (const r of resources) {
    if (r.kind !== 'Pipe') continue;
    const spec = r.spec as PipeSpecView;
    const key = keyOfSpec(spec);
    const seen = first.get(key);
    const field = spec.id !== undefined ? 'id' : 'name';
    if (!seen) first.set(key, r);
    else {
      const message =
        `pipe ${spec.id ?? spec.name ?? ''} is already managed by ${seen.address} ` +
        `(${seen.source.file}:${seen.source.line}); one Pipe manifest per pipe`;
      out.push({ resource: r, path: ['spec', field], code: 'duplicate-pipe', message });
    }
  }
  return out;
}

function desiredCanonical(spec: PipeSpecView, fingerprints: Readonly<Record<string, string>>): Obj {
  const out: Obj = {};
  // Owned pipes are matched by their recorded id: a changed name then renames the pipe (identity is the id, not the name).
  if (spec.name !== undefined) out.name = spec.name;
  if (spec.state) out.state = spec.state;
  if (spec.settings) out.settings = definedOnly(spec.settings);
  if (spec.scaling) out.scaling = definedOnly(spec.scaling);
  if (spec.source) {
    const source: Obj = {};
    for (const [kind, members] of Object.entries(spec.source)) if (members) setOwn(source, kind, definedOnly(members));
    out.source = source;
  }
  if (spec.destination) out.destination = { columns: spec.destination.columns };
  if (spec.fieldMappings) out.fieldMappings = spec.fieldMappings;
  for (const [path, fp] of Object.entries(fingerprints)) setAt(out, path.split('.'), { $sensitive: fp });
  return out;
}

/** The live pipe in the shape of the desired form: only the declared fields, secrets as the fingerprint last sent. */
function liveCanonical(expected: Obj, live: WirePipe, secrets: Readonly<Record<string, string>>): Obj {
  const out: Obj = {};
  if (expected.name !== undefined) out.name = live.name;
  if (expected.state !== undefined) out.state = stateOf(live.state);
  if (isObj(expected.settings))
    out.settings = Object.fromEntries(Object.keys(expected.settings).map((k) => [k, live.settings?.[k] ?? null]));
  if (isObj(expected.scaling)) out.scaling = Object.fromEntries(Object.keys(expected.scaling).map((k) => [k, liveScaling(live, k)]));
  if (isObj(expected.source)) {
    const source: Obj = {};
    for (const [kind, members] of Object.entries(expected.source)) {
      if (!isObj(members)) continue;
      const liveMembers = live.source[kind];
      const liveObj = isObj(liveMembers ?? undefined) ? (liveMembers as Obj) : {};
      setOwn(
        source,
        kind,
        Object.fromEntries(
          Object.keys(members).map((m) => {
            const fp = secrets[`source.${kind}.${m}`];
            return [m, fp !== undefined ? { $sensitive: fp } : (liveObj[m] ?? null)];
          }),
        ),
      );
    }
    out.source = source;
  }
  if (expected.destination !== undefined) out.destination = { columns: live.destination?.columns ?? null };
  if (expected.fieldMappings !== undefined) out.fieldMappings = live.fieldMappings ?? null;
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
    setOwn(target, head, value);
    return;
  }
  const next = ownMember(target, head);
  if (!isObj(next)) return;
  setAt(next, rest, value);
}

/** Only the calls whose members changed, each with only the changed members, in the service's order. */
function pipeCalls(spec: PipeSpecView, desired: Obj, changedPaths: readonly string[]): UpdateCall[] {
  const calls: UpdateCall[] = [];
  const patch: JsonObject = {};
  const top = (p: string) => p.split(/[.[]/)[0] ?? '';
  const changed = (field: string) => changedPaths.some((p) => top(p) === field);
  if (changed('name') && spec.name !== undefined) patch.name = spec.name;
  const source = sourcePatch(desired, changedPaths);
  if (source) patch.source = source;
  if (changed('destination') && spec.destination) patch.destination = { columns: spec.destination.columns };
  if (changed('fieldMappings') && spec.fieldMappings) patch.fieldMappings = spec.fieldMappings;
  if (Object.keys(patch).length > 0) calls.push({ call: 'patch', body: patch });
  const settings = membersChanged(desired.settings, 'settings', changedPaths);
  if (settings) calls.push({ call: 'settings', body: settings });
  const scaling = membersChanged(desired.scaling, 'scaling', changedPaths);
  if (scaling) calls.push({ call: 'scaling', body: scaling });
  if (changed('state') && spec.state) calls.push({ call: 'state', body: { command: spec.state === 'running' ? 'start' : 'stop' } });
  return calls;
}

function membersChanged(desired: Json | undefined, field: string, changedPaths: readonly string[]): JsonObject | null {
  if (!isObj(desired)) return null;
  const out: JsonObject = {};
  for (const p of changedPaths) {
    const member = p.startsWith(`${field}.`) ? p.slice(field.length + 1).split(/[.[]/)[0] : undefined;
    const value = member === undefined ? undefined : ownMember(desired, member);
    if (member !== undefined && value !== undefined) setOwn(out, member, value);
  }
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * Changed source members; a database pipe's connection fields go with its credentials, because
 * the service re-validates the connection and fails without them (hosted-api §3.6).
 */
function sourcePatch(desired: Obj, changedPaths: readonly string[]): JsonObject | null {
  const source = desired.source;
  if (!isObj(source)) return null;
  const out: JsonObject = {};
  for (const [kind, members] of Object.entries(source)) {
    const changed = membersChanged(members, `source.${kind}`, changedPaths);
    if (!changed) continue;
    const all = members as Obj;
    if ((kind as PipeSourceKind) === 'postgres' && all.credentials !== undefined) changed.credentials = all.credentials;
    setOwn(out, kind, changed);
  }
  return Object.keys(out).length > 0 ? out : null;
}
