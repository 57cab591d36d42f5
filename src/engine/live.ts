/** Reads the live state one plan needs: one list per kind (O(kinds) requests, not O(objects)). */
import { createHash } from 'node:crypto';
import type { AnyKind } from '../core/kind-name.js';
import type { LiveObject, LiveState, ReadBefore } from '../core/live.js';
import { CapabilityError, ServiceIdleError } from '../core/errors.js';
import type { CallOptions, ServicePort } from '../core/ports.js';
import { registerSecret } from '../core/scrub.js';
import type { Json } from '../core/wire.js';
import type { KindDefinition } from '../kinds/kind.js';
import { REGISTRY } from '../kinds/registry.js';
import { stableJson } from '../planner/diff.js';
import { LiveIndex } from '../planner/live-index.js';
import type { RunMemo } from './memo.js';

/**
 * The kinds a plan needs whatever their `read`: those the manifests declare, and those of which the
 * inventory owns objects obsync may delete (a prune of the last one must see it: without the read it
 * would silently not happen).
 */
export function neededKinds(desired: readonly { kind: string }[], owned: readonly { kind: AnyKind }[]): Set<string> {
  return new Set([...desired.map((r) => r.kind), ...owned.filter((e) => isDeletable(e.kind)).map((e) => e.kind)]);
}

function isDeletable(kind: AnyKind): boolean {
  const def = (REGISTRY as readonly KindDefinition[]).find((d) => d.kind === kind);
  return def?.managed === true && def.deletable;
}

/**
 * Every kind the target serves, except those read only when needed (`read: 'when-declared'`)
 * that no manifest declares and the inventory does not hold.
 */
export function kindsToRead(port: ServicePort, needed: ReadonlySet<string>): KindDefinition[] {
  return (REGISTRY as readonly KindDefinition[]).filter(
    (def) => (def.read === 'always' || needed.has(def.kind)) && port.collection(def.kind) !== null,
  );
}

/** `memo`: a target's repeated runs reuse the items unchanged since the last read (./memo.ts). */
export async function readLive(
  port: ServicePort,
  kinds: readonly KindDefinition[],
  opts: CallOptions & { memo?: RunMemo } = {},
): Promise<LiveState> {
  const { signal, memo } = opts;
  const options = (def: KindDefinition) => (memo ? { signal, memo: memo.list(def.kind) } : { signal });
  const unread = new Map<AnyKind, string>();
  const unsupported = new Map<AnyKind, string>();
  const lists = await Promise.all(
    kinds.map((def) =>
      (port.collection(def.kind)?.list(options(def)) ?? Promise.resolve([])).catch((err: unknown) => {
        // The server has no such objects (roles without RBAC): nothing of the kind, and a manifest of it is refused.
        if (err instanceof CapabilityError) {
          unsupported.set(def.kind, err.message);
          return null;
        }
        // Read only by changing the service (waking it), which this command does not do: planned without.
        if (!(err instanceof ServiceIdleError)) throw err;
        unread.set(def.kind, err.message);
        return null;
      }),
    ),
  );
  const objects = new Map<string, readonly LiveObject[]>();
  kinds.forEach((def, i) => {
    const list = lists[i];
    if (list !== null) objects.set(def.kind, list ?? []);
  });
  for (const def of kinds) registerLiveSecrets(def, objects.get(def.kind) ?? []);
  return {
    objects: (kind) => objects.get(kind),
    versionOf: lazyVersions(kinds, objects),
    unread: (kind) => unread.get(kind),
    unsupported: (kind) => unsupported.get(kind),
  };
}

/** A live object's secrets (a webhook's URL, in a pruned webhook's backup) are masked in everything printed. */
export function registerLiveSecrets(def: KindDefinition, objects: readonly LiveObject[]): void {
  const secretsOf = def.liveSecrets?.bind(def);
  if (!secretsOf) return;
  for (const live of objects) for (const value of secretsOf(live)) registerSecret(value);
}

/** Hashing every live object costs a fifth of a plan; only the objects a step changes need it. */
function lazyVersions(kinds: readonly KindDefinition[], objects: ReadonlyMap<string, readonly LiveObject[]>): LiveState['versionOf'] {
  const byKind = new Map<string, Map<string, LiveObject>>();
  const computed = new Map<string, string>();
  return (kind, id) => {
    const key = `${kind}\u0000${id}`;
    const known = computed.get(key);
    if (known !== undefined) return known;
    let index = byKind.get(kind);
    if (!index) byKind.set(kind, (index = new Map((objects.get(kind) ?? []).map((o) => [o.id, o]))));
    const live = index.get(id);
    if (!live) return undefined;
    const volatile = kinds.find((d) => d.kind === kind)?.volatile ?? [];
    const version = versionOf(live, new Set(volatile));
    computed.set(key, version);
    return version;
  };
}

export function versionOf(object: object, ignore: ReadonlySet<string> = new Set()): string {
  const kept = Object.fromEntries(Object.entries(object).filter(([k]) => !ignore.has(k))) as Json;
  return createHash('sha256').update(stableJson(kept)).digest('base64url').slice(0, 22);
}

/** The ids a run read, for the applier's proof of ownership; indexes are built on the first create that asks. */
export function readBefore(live: LiveState, kinds: readonly KindDefinition[]): ReadBefore {
  let ids: Set<string> | undefined;
  const byKey = new Map<AnyKind, LiveIndex | null>();
  const index = (kind: AnyKind): LiveIndex | null => {
    if (byKey.has(kind)) return byKey.get(kind) ?? null;
    const def = kinds.find((d) => d.kind === kind);
    const objects = live.objects(kind);
    const built = def?.managed && objects ? new LiveIndex(objects, (o) => def.liveKey(o)) : null;
    byKey.set(kind, built);
    return built;
  };
  return {
    had: (id) => (ids ??= new Set(kinds.flatMap((d) => (live.objects(d.kind) ?? []).map((o) => o.id)))).has(id),
    withKey: (kind, key) => (index(kind)?.withKey(key) ?? []).map((o) => o.id),
  };
}
