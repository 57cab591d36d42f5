/**
 * A list that leaves out an owned object is not proof it is gone (issue 50). Every owned object
 * missing from its kind's list is looked up by its id (`GET …/{id}`) before the plan may create
 * anything in its place: a 404 confirms it is gone (deleted by hand: planned as usual), an answer
 * proves the list inconsistent. Such an object is planned as found (its live form from the GET),
 * and the run creates nothing (planner: `listGaps`): a list that hid one object may hide another,
 * and a create would duplicate it. Only missing owned objects cost a request, so a plan still
 * costs O(kinds) requests; once one gap is proven the rest are not asked about (nothing is
 * created either way).
 */
import { entryAddress, type InventoryEntry } from '../core/inventory.js';
import type { ListGap, LiveObject, LiveState } from '../core/live.js';
import type { AnyKind } from '../core/kind-name.js';
import type { CallOptions, ServicePort } from '../core/ports.js';
import type { KindDefinition } from '../kinds/kind.js';
import { registerLiveSecrets, versionOf } from './live.js';

/** How many omitted objects are looked up at once. */
const AT_ONCE = 4;

export interface ConfirmedLive {
  /** The live state with the objects its lists left out and their GETs found. */
  live: LiveState;
  gaps: ListGap[];
}

export async function confirmOmitted(
  port: ServicePort,
  kinds: readonly KindDefinition[],
  read: LiveState,
  inventory: readonly InventoryEntry[],
  opts: CallOptions = {},
): Promise<ConfirmedLive> {
  const missing = omittedOwned(kinds, read, inventory);
  if (missing.length === 0) return { live: read, gaps: [] };
  const gaps: ListGap[] = [];
  const found = new Map<string, LiveObject[]>();
  for (let i = 0; i < missing.length && gaps.length === 0; i += AT_ONCE) {
    const batch = missing.slice(i, i + AT_ONCE);
    const answers = await Promise.all(batch.map((e) => port.collection(e.kind)?.get(e.id, opts) ?? Promise.resolve(null)));
    batch.forEach((e, j) => {
      const live = answers[j];
      if (!live || live.id !== e.id) return;
      gaps.push({ kind: e.kind, address: entryAddress(e), id: e.id });
      found.set(e.kind, [...(found.get(e.kind) ?? []), live]);
    });
  }
  if (gaps.length === 0) return { live: read, gaps };
  return { live: withFound(read, kinds, found), gaps };
}

/** Owned entries of the kinds read whose ids their kind's list does not hold. */
function omittedOwned(
  kinds: readonly KindDefinition[],
  read: LiveState,
  inventory: readonly InventoryEntry[],
): (InventoryEntry & { id: string })[] {
  const listed = new Map<string, ReadonlySet<string>>();
  for (const def of kinds) {
    const objects = def.managed ? read.objects(def.kind) : undefined;
    if (objects) listed.set(def.kind, new Set(objects.map((o) => o.id)));
  }
  const out: (InventoryEntry & { id: string })[] = [];
  for (const e of inventory) {
    if (e.status !== 'owned' || e.id === null) continue;
    const ids = listed.get(e.kind);
    if (ids && !ids.has(e.id)) out.push({ ...e, id: e.id });
  }
  return out;
}

/** The live state with the found objects added to their kinds' lists (each list made once: the planner indexes it by identity). */
function withFound(read: LiveState, kinds: readonly KindDefinition[], found: ReadonlyMap<string, LiveObject[]>): LiveState {
  const lists = new Map<string, readonly LiveObject[]>();
  for (const [kind, more] of found) {
    lists.set(kind, [...(read.objects(kind as AnyKind) ?? []), ...more]);
    const def = kinds.find((d) => d.kind === kind);
    if (def) registerLiveSecrets(def, more);
  }
  const foundById = new Map([...found].flatMap(([kind, more]) => more.map((o) => [`${kind}\u0000${o.id}`, o] as const)));
  const live: LiveState = {
    objects: (kind) => lists.get(kind) ?? read.objects(kind),
    versionOf: (kind, id) => {
      const object = foundById.get(`${kind}\u0000${id}`);
      if (!object) return read.versionOf(kind, id);
      return versionOf(object, new Set(kinds.find((d) => d.kind === kind)?.volatile ?? []));
    },
  };
  if (read.unread) live.unread = read.unread.bind(read);
  return live;
}
