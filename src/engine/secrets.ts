/**
 * Sensitive values of the desired objects: each is replaced by its keyed fingerprint for
 * comparison and hashing, and kept aside (fingerprint → value) for the applier only. The
 * paths come from the schemas' `sensitive` marks (one place).
 */
import type { InventoryStore } from '../core/inventory.js';
import type { Address, Kind } from '../core/plan.js';
import type { DesiredResource } from '../core/resource.js';
import type { Json } from '../core/wire.js';
import { stableJson } from '../planner/diff.js';
import { setOwn } from '../core/json.js';

/** Schema paths of sensitive fields per kind; `*` stands for any array item. */
export type SensitivePaths = ReadonlyMap<Kind, readonly (readonly string[])[]>;

export interface DesiredSecrets {
  /** Per address: spec path → fingerprint. */
  fingerprints: Map<Address, Record<string, string>>;
  /** Per address: fingerprint → value (never printed, never saved). */
  values: Map<Address, Map<string, Json>>;
  /** Per address: hash of the spec with secrets replaced by fingerprints (computed on first ask). */
  specHashes: SpecHashes;
  /** The fingerprint of any value, as the desired ones are made (a readable live secret is compared by it). */
  fingerprint: (value: Json) => string;
}

export type SpecHashes = Pick<ReadonlyMap<Address, string>, 'get'>;

export function extractSecrets(
  desired: readonly DesiredResource[],
  paths: SensitivePaths,
  inventory: Pick<InventoryStore, 'fingerprint'>,
): DesiredSecrets {
  // Only the specs that had secrets masked are kept aside; the others are hashed as they are.
  const masked = new Map<Address, Json>();
  const fingerprint = valueFingerprint(inventory);
  const out: DesiredSecrets = {
    fingerprints: new Map(),
    values: new Map(),
    specHashes: lazySpecHashes(desired, masked, inventory),
    fingerprint,
  };
  for (const res of desired) {
    const found: { path: string; value: Json }[] = [];
    for (const pattern of paths.get(res.kind) ?? []) collect(res.spec as Json, pattern, [], found);
    if (found.length === 0) continue;
    const fps: Record<string, string> = {};
    const values = new Map<string, Json>();
    let spec = res.spec as Json;
    for (const { path, value } of found) {
      const fp = fingerprint(value);
      setOwn(fps, path, fp);
      values.set(fp, value);
      spec = replaceAt(spec, path.split('.'), { $sensitive: fp });
    }
    out.fingerprints.set(res.address, fps);
    out.values.set(res.address, values);
    masked.set(res.address, spec);
  }
  return out;
}

/** The keyed fingerprint of a JSON value (stable key order): how every sensitive value is compared. */
export function valueFingerprint(inventory: Pick<InventoryStore, 'fingerprint'>): (value: Json) => string {
  return (value) => inventory.fingerprint(stableJson(value));
}

/**
 * A plan needs the hash of changed objects only; an apply records every one. The index of the
 * resources by address is made on the first question too: a steady plan of 20,000 unchanged
 * objects asks none, and the index and a record per object were 2.5 MB of its garbage.
 */
function lazySpecHashes(
  desired: readonly DesiredResource[],
  masked: ReadonlyMap<Address, Json>,
  inventory: Pick<InventoryStore, 'fingerprint'>,
): SpecHashes {
  const hashes = new Map<Address, string>();
  let byAddress: Map<Address, DesiredResource> | undefined;
  return {
    get(address) {
      const known = hashes.get(address);
      if (known !== undefined) return known;
      byAddress ??= new Map(desired.map((r) => [r.address, r]));
      const res = byAddress.get(address);
      if (res === undefined) return undefined;
      const hash = inventory.fingerprint(stableJson({ labels: res.labels, spec: masked.get(address) ?? (res.spec as Json) }));
      hashes.set(address, hash);
      return hash;
    },
  };
}

function collect(value: Json | undefined, pattern: readonly string[], at: string[], found: { path: string; value: Json }[]): void {
  if (value === undefined || value === null) return;
  const [head, ...rest] = pattern;
  if (head === undefined) {
    found.push({ path: at.join('.'), value });
    return;
  }
  if (head === '*') {
    if (Array.isArray(value)) value.forEach((item, i) => collect(item, rest, [...at, String(i)], found));
    return;
  }
  if (typeof value === 'object' && !Array.isArray(value)) collect(value[head], rest, [...at, head], found);
}

function replaceAt(value: Json, path: readonly string[], replacement: Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value)) return value.map((item, i) => (String(i) === head ? replaceAt(item, rest, replacement) : item));
  if (typeof value === 'object' && value !== null) {
    const child = value[head];
    return child === undefined ? value : { ...value, [head]: replaceAt(child, rest, replacement) };
  }
  return value;
}
