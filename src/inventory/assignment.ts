/**
 * Which live replica leads which target (issue 28): rendezvous hashing with bounded loads. Every
 * replica computes the same answer from the same registry, without talking to the others.
 *
 * Each (target, replica) pair has a score, a hash of both names; pairs are taken from the highest
 * score down, and a target goes to the first replica that knows it and still has room. Room is
 * ⌊targets ÷ replicas⌋ first, then ⌈targets ÷ replicas⌉, so every replica leads one of those two
 * counts when all of them know all targets. A target that only full replicas know goes to the best
 * of them anyway: a target only one replica knows is led by it.
 *
 * Scores do not depend on who else is live, so a join or a death moves few targets: those the
 * newcomer scores highest on (or the dead replica's), and the few that the new bounds push along.
 */
import { createHash } from 'node:crypto';

export interface ReplicaTargets {
  id: string;
  targets: readonly string[];
}

export interface Assignment {
  /** target → replica id, for every target some live replica knows. */
  owner: Map<string, string>;
  /** How many targets each replica leads (every live replica, 0 included). */
  load: Map<string, number>;
  /** ⌈targets ÷ replicas⌉ + 1: no replica leads more while every replica knows every target. */
  cap: number;
}

/** 48 bits of SHA-256 of the pair: exact in a double, and the same on every replica. */
export function rendezvousScore(target: string, replica: string): number {
  return createHash('sha256').update(target).update('\0').update(replica).digest().readUIntBE(0, 6);
}

export function assignTargets(replicas: readonly ReplicaTargets[]): Assignment {
  const ids = [...new Set(replicas.map((r) => r.id))].sort();
  const known = new Map<string, Set<string>>();
  for (const r of replicas) {
    const set = known.get(r.id) ?? new Set<string>();
    for (const t of r.targets) set.add(t);
    known.set(r.id, set);
  }
  const targets = [...new Set([...known.values()].flatMap((s) => [...s]))].sort();
  const load = new Map(ids.map((id) => [id, 0]));
  const owner = new Map<string, string>();
  if (ids.length === 0) return { owner, load, cap: 0 };
  const pairs = ids
    .flatMap((id) => [...(known.get(id) ?? [])].map((target) => ({ target, id, score: rendezvousScore(target, id) })))
    .sort((a, b) => b.score - a.score || compare(a.id, b.id) || compare(a.target, b.target));
  const floor = Math.floor(targets.length / ids.length);
  const ceil = Math.ceil(targets.length / ids.length);
  for (const room of [floor, ceil, Number.POSITIVE_INFINITY]) {
    for (const p of pairs) {
      if (owner.has(p.target)) continue;
      const n = load.get(p.id) ?? 0;
      if (n >= room) continue;
      owner.set(p.target, p.id);
      load.set(p.id, n + 1);
    }
  }
  return { owner, load, cap: ceil + 1 };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a replica runs with, as the others see it in the registry. */
export interface ReplicaSettings extends ReplicaTargets {
  version: string;
  leaseMs: number;
}

/**
 * What differs between this replica and each other live one: target lists, obsync versions, lease
 * settings. Sorted; empty when they agree. Sharing still works (each target goes to a replica
 * that knows it, the lease fences every write), but the user should know.
 */
export function disagreements(me: ReplicaSettings, live: readonly ReplicaSettings[]): string[] {
  const found: string[] = [];
  const mine = new Set(me.targets);
  for (const other of live) {
    if (other.id === me.id) continue;
    const theirs = new Set(other.targets);
    const onlyMine = [...mine].filter((t) => !theirs.has(t)).sort();
    const onlyTheirs = [...theirs].filter((t) => !mine.has(t)).sort();
    if (onlyMine.length > 0) found.push(`replica ${other.id} does not run target(s) ${onlyMine.join(', ')} that replica ${me.id} runs`);
    if (onlyTheirs.length > 0) found.push(`replica ${other.id} runs target(s) ${onlyTheirs.join(', ')} that replica ${me.id} does not`);
    if (other.version !== me.version) found.push(`replica ${other.id} runs obsync ${other.version}, replica ${me.id} runs ${me.version}`);
    if (other.leaseMs !== me.leaseMs)
      found.push(`replica ${other.id} has state.leaseSeconds ${other.leaseMs / 1000}, replica ${me.id} has ${me.leaseMs / 1000}`);
  }
  return found.sort();
}
