/**
 * Organization API keys (reference/hosted-api.md §4; clickhousectl's live key lifecycle in
 * tests/integration_org_test.rs): create (secret returned once, or client-generated with
 * `hashData`), list, get, PATCH (state, name, expiry, roles, IP access list), delete, and the
 * Basic-auth check with the key's IP access list enforced. Only SHA-256 hashes (base64) of key
 * ids and secrets are stored; comparisons use `timingSafeEqual`.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { DomainResult, JsonRecord } from './contract.js';
import type { KeyAuthentication, KeysDomain, KeysDomainOptions } from './hosted-contract.js';
import { ipAllowed, parseKeyCreate, parseKeyPatch, SYSTEM_ROLES, type IpEntry, type LegacyRole } from './keys-body.js';
import { badRequest, notFoundJson, ok } from './result.js';

const MAX_KEYS = 100;
const BOOTSTRAP_ID = 'b0075724-0000-4000-8000-000000000001';
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ANYWHERE: IpEntry[] = [{ source: '0.0.0.0/0', description: 'Anywhere' }];

interface StoredKey {
  id: string;
  name: string;
  state: 'enabled' | 'disabled';
  /** Assigned role UUIDs (older snapshots hold legacy `roles` names instead). */
  roleIds: string[];
  keySuffix: string;
  createdAt: string;
  expireAt: string | null;
  usedAt: string | null;
  ipAccessList: IpEntry[];
  keyIdHash: string;
  keySecretHash: string;
}

export function sha256Base64(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64');
}

/** `length` characters from [A-Za-z0-9], uniformly (rejection sampling over random bytes). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

function hashEquals(a: string, b: string): boolean {
  const x = Buffer.from(a, 'base64');
  const y = Buffer.from(b, 'base64');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

function output(k: StoredKey): JsonRecord {
  const assigned = SYSTEM_ROLES.filter((r) => k.roleIds.includes(r.roleId));
  const out: JsonRecord = {
    id: k.id,
    name: k.name,
    state: k.state,
    roles: assigned.map((r) => r.legacy),
    assignedRoles: assigned.map((r) => ({ roleId: r.roleId, roleName: r.roleName, roleType: 'system' })),
    keySuffix: k.keySuffix,
    createdAt: k.createdAt,
    expireAt: k.expireAt,
    ipAccessList: k.ipAccessList.map((e) => ({ ...e })),
  };
  if (k.usedAt !== null) out.usedAt = k.usedAt;
  return out;
}

/** A restored row; snapshots written before role ids kept legacy role names. */
function restoreKey(raw: StoredKey & { roles?: LegacyRole[] }): StoredKey {
  const { roles, ...rest } = raw;
  const roleIds = rest.roleIds ?? SYSTEM_ROLES.filter((r) => roles?.includes(r.legacy)).map((r) => r.roleId);
  return { ...rest, roleIds };
}

export function createKeysDomain(opts: KeysDomainOptions): KeysDomain {
  const now = opts.now ?? (() => new Date());
  const keys: StoredKey[] = [];
  let version = 0;

  if (opts.snapshot !== undefined) {
    if (!Array.isArray(opts.snapshot.keys)) throw new Error('keys snapshot: missing keys array');
    keys.push(...(structuredClone(opts.snapshot.keys) as unknown as StoredKey[]).map(restoreKey));
  }
  // The pre-provisioned key is always listed and, at every start, follows the configured credential again.
  const bootstrap = keys.find((k) => k.id === BOOTSTRAP_ID);
  const bootstrapRecord: StoredKey = {
    id: BOOTSTRAP_ID,
    name: 'sandbox-bootstrap',
    state: 'enabled',
    roleIds: [SYSTEM_ROLES[0]?.roleId ?? ''],
    keySuffix: opts.bootstrap.keyId.slice(-4),
    createdAt: bootstrap?.createdAt ?? now().toISOString(),
    expireAt: null,
    usedAt: bootstrap?.usedAt ?? null,
    ipAccessList: ANYWHERE.map((e) => ({ ...e })),
    keyIdHash: sha256Base64(opts.bootstrap.keyId),
    keySecretHash: sha256Base64(opts.bootstrap.keySecret),
  };
  if (bootstrap === undefined) keys.unshift(bootstrapRecord);
  else Object.assign(bootstrap, bootstrapRecord);

  const find = (id: string) => keys.find((k) => k.id === id);
  const missing = () => notFoundJson('API key not found');

  function markUsed(k: StoredKey): void {
    const minute = new Date(Math.floor(now().getTime() / 60000) * 60000).toISOString();
    if (k.usedAt !== minute) {
      k.usedAt = minute;
      version += 1;
    }
  }

  function create(body: unknown): DomainResult<JsonRecord> {
    const parsed = parseKeyCreate(body);
    if (!parsed.ok) return badRequest(parsed.error);
    const req = parsed.value;
    if (keys.length >= MAX_KEYS) return badRequest(`An organization can have at most ${MAX_KEYS} API keys`);
    let keyId: string | undefined;
    let keySecret: string | undefined;
    let hashes: { keyIdHash: string; keySecretHash: string; suffix: string };
    if (req.hashData !== null) {
      hashes = { keyIdHash: req.hashData.keyIdHash, keySecretHash: req.hashData.keySecretHash, suffix: req.hashData.keyIdSuffix };
    } else {
      keyId = randomAlphanumeric(20);
      keySecret = `4b1d${randomAlphanumeric(38)}`;
      hashes = { keyIdHash: sha256Base64(keyId), keySecretHash: sha256Base64(keySecret), suffix: keyId.slice(-4) };
    }
    if (keys.some((k) => hashEquals(k.keyIdHash, hashes.keyIdHash))) return badRequest('A key with this key id already exists');
    const record: StoredKey = {
      id: randomUUID(),
      name: req.name,
      state: req.state,
      roleIds: req.roleIds,
      keySuffix: hashes.suffix,
      createdAt: now().toISOString(),
      expireAt: req.expireAt,
      usedAt: null,
      ipAccessList: req.ipAccessList,
      keyIdHash: hashes.keyIdHash,
      keySecretHash: hashes.keySecretHash,
    };
    keys.push(record);
    version += 1;
    const result: JsonRecord = { key: output(record) };
    if (keyId !== undefined && keySecret !== undefined) {
      result.keyId = keyId;
      result.keySecret = keySecret;
    }
    return ok(result);
  }

  function patch(id: string, body: unknown): DomainResult<JsonRecord> {
    const key = find(id);
    if (key === undefined) return missing();
    const parsed = parseKeyPatch(body);
    if (!parsed.ok) return badRequest(parsed.error);
    const change = parsed.value;
    if (change.name !== undefined) key.name = change.name;
    if (change.state !== undefined) key.state = change.state;
    if (change.expireAt !== undefined) key.expireAt = change.expireAt;
    if (change.roleIds !== undefined) key.roleIds = change.roleIds;
    if (change.ipAccessList !== undefined) key.ipAccessList = change.ipAccessList;
    version += 1;
    return ok(output(key));
  }

  function remove(id: string, callerId: string): DomainResult<JsonRecord> {
    const i = keys.findIndex((k) => k.id === id);
    if (i < 0) return missing();
    if (id === callerId) return badRequest('Only a key not used to authenticate the active request can be deleted');
    keys.splice(i, 1);
    version += 1;
    return ok({});
  }

  function authenticate(keyId: string, keySecret: string, ip: string): KeyAuthentication {
    const refused: KeyAuthentication = { ok: false, status: 401, message: 'Invalid credentials' };
    const idHash = sha256Base64(keyId);
    const secretHash = sha256Base64(keySecret);
    // Compare against every key so the time taken does not depend on which one matched.
    let match: StoredKey | undefined;
    for (const k of keys) if (hashEquals(k.keyIdHash, idHash) && match === undefined) match = k;
    if (match === undefined || !hashEquals(match.keySecretHash, secretHash)) return refused;
    if (match.state !== 'enabled') return refused;
    if (match.expireAt !== null && Date.parse(match.expireAt) <= now().getTime()) return refused;
    if (!ipAllowed(match.ipAccessList, ip))
      return { ok: false, status: 403, message: `This API key is not allowed from ${ip}; check its IP access list` };
    markUsed(match);
    return { ok: true, id: match.id };
  }

  function roles(): DomainResult<JsonRecord[]> {
    return ok(
      SYSTEM_ROLES.map((r) => ({
        id: r.roleId,
        name: r.roleName,
        type: 'system',
        actors: keys.filter((k) => k.roleIds.includes(r.roleId)).map((k) => `apiKey/${k.id}`),
      })),
    );
  }

  return {
    list: () => ok(keys.map(output)),
    get(id) {
      const key = find(id);
      return key === undefined ? missing() : ok(output(key));
    },
    create,
    patch,
    delete: remove,
    roles,
    authenticate,
    snapshot: () => ({ keys: structuredClone(keys) as unknown as JsonRecord[] }),
    get version() {
      return version;
    },
  };
}
