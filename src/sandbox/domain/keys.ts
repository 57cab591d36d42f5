/**
 * Organization API keys (reference/hosted-api.md §4): create (secret returned once, or
 * client-generated with `hashData`), list (never secrets) and Basic-auth checks. Only SHA-256
 * hashes (base64) of key ids and secrets are stored; comparisons use `timingSafeEqual`.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { DomainResult, JsonRecord } from './contract.js';
import type { KeysDomain, KeysDomainOptions } from './hosted-contract.js';
import { isPlainObject } from './pipes-settings.js';
import { badRequest, ok } from './result.js';

const ROLES = ['admin', 'developer', 'query_endpoints'] as const;
type Role = (typeof ROLES)[number];
const ROLE_INFO: Readonly<Record<Role, { roleId: string; roleName: string }>> = {
  admin: { roleId: 'a0000000-0000-4000-8000-000000000001', roleName: 'Admin' },
  developer: { roleId: 'a0000000-0000-4000-8000-000000000002', roleName: 'Developer' },
  query_endpoints: { roleId: 'a0000000-0000-4000-8000-000000000003', roleName: 'Query Endpoints' },
};
const CREATE_FIELDS = new Set(['name', 'roles', 'state', 'expireAt', 'ipAccessList', 'hashData']);
const MAX_KEYS = 100;
const BOOTSTRAP_ID = 'b0075724-0000-4000-8000-000000000001';
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

interface StoredKey {
  id: string;
  name: string;
  state: 'enabled' | 'disabled';
  roles: Role[];
  keySuffix: string;
  createdAt: string;
  expireAt: string | null;
  usedAt: string | null;
  ipAccessList: { source: string; description: string }[];
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

function isSha256Base64(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

function validSource(source: string): boolean {
  const [addr, prefix, ...rest] = source.split('/');
  if (addr === undefined || rest.length > 0) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

function output(k: StoredKey): JsonRecord {
  const out: JsonRecord = {
    id: k.id,
    name: k.name,
    state: k.state,
    roles: [...k.roles],
    assignedRoles: k.roles.map((r) => ({ ...ROLE_INFO[r], roleType: 'system' })),
    keySuffix: k.keySuffix,
    createdAt: k.createdAt,
    expireAt: k.expireAt,
    ipAccessList: k.ipAccessList.map((e) => ({ ...e })),
  };
  if (k.usedAt !== null) out.usedAt = k.usedAt;
  return out;
}

type Parsed = Omit<StoredKey, 'id' | 'createdAt' | 'usedAt' | 'keyIdHash' | 'keySecretHash' | 'keySuffix'> & {
  hashData: { keyIdHash: string; keyIdSuffix: string; keySecretHash: string } | null;
};

function parseCreate(body: unknown): Parsed | string {
  if (!isPlainObject(body)) return 'body must be an object';
  for (const key of Object.keys(body)) if (!CREATE_FIELDS.has(key)) return `${key} is not supported`;
  const { name, roles, state, expireAt, ipAccessList, hashData } = body;
  if (typeof name !== 'string' || name.trim().length < 1 || name.length > 50) return 'name must be a string of 1 to 50 characters';
  if (!Array.isArray(roles) || roles.length < 1) return 'roles must contain at least 1 element';
  for (const r of roles) if (!(ROLES as readonly unknown[]).includes(r)) return `roles: ${String(r)} is not one of ${ROLES.join(', ')}`;
  if (state !== undefined && state !== 'enabled' && state !== 'disabled') return 'state must be enabled or disabled';
  let expiry: string | null = null;
  if (expireAt !== undefined && expireAt !== null && expireAt !== '') {
    if (typeof expireAt !== 'string' || Number.isNaN(Date.parse(expireAt))) return 'expireAt must be an ISO-8601 date-time or null';
    expiry = new Date(expireAt).toISOString();
  }
  const list: StoredKey['ipAccessList'] = [];
  if (ipAccessList !== undefined) {
    if (!Array.isArray(ipAccessList)) return 'ipAccessList must be an array';
    for (const [i, e] of ipAccessList.entries()) {
      if (!isPlainObject(e) || typeof e.source !== 'string' || !validSource(e.source)) return `ipAccessList.${i}.source must be an IP address or CIDR`;
      if (e.description !== undefined && typeof e.description !== 'string') return `ipAccessList.${i}.description must be a string`;
      list.push({ source: e.source, description: e.description ?? '' });
    }
  } else {
    list.push({ source: '0.0.0.0/0', description: 'Anywhere' });
  }
  let hd: Parsed['hashData'] = null;
  if (hashData !== undefined) {
    if (!isPlainObject(hashData)) return 'hashData must be an object';
    if (!isSha256Base64(hashData.keyIdHash)) return 'hashData.keyIdHash must be a base64 SHA-256 hash';
    if (!isSha256Base64(hashData.keySecretHash)) return 'hashData.keySecretHash must be a base64 SHA-256 hash';
    if (typeof hashData.keyIdSuffix !== 'string' || hashData.keyIdSuffix.length !== 4) return 'hashData.keyIdSuffix must be the last 4 characters of the key id';
    hd = { keyIdHash: hashData.keyIdHash, keyIdSuffix: hashData.keyIdSuffix, keySecretHash: hashData.keySecretHash };
  }
  return { name, roles: [...new Set(roles as Role[])], state: state ?? 'enabled', expireAt: expiry, ipAccessList: list, hashData: hd };
}

export function createKeysDomain(opts: KeysDomainOptions): KeysDomain {
  const now = opts.now ?? (() => new Date());
  const bootstrapIdHash = sha256Base64(opts.bootstrap.keyId);
  const bootstrapSecretHash = sha256Base64(opts.bootstrap.keySecret);
  const keys: StoredKey[] = [];
  let version = 0;

  if (opts.snapshot !== undefined) {
    if (!Array.isArray(opts.snapshot.keys)) throw new Error('keys snapshot: missing keys array');
    keys.push(...(structuredClone(opts.snapshot.keys) as unknown as StoredKey[]));
  }
  // The pre-provisioned key is always listed and always follows the configured credential.
  const bootstrap = keys.find((k) => k.id === BOOTSTRAP_ID);
  const bootstrapRecord: StoredKey = {
    id: BOOTSTRAP_ID,
    name: 'sandbox-bootstrap',
    state: 'enabled',
    roles: ['admin'],
    keySuffix: opts.bootstrap.keyId.slice(-4),
    createdAt: bootstrap?.createdAt ?? now().toISOString(),
    expireAt: null,
    usedAt: bootstrap?.usedAt ?? null,
    ipAccessList: [{ source: '0.0.0.0/0', description: 'Anywhere' }],
    keyIdHash: bootstrapIdHash,
    keySecretHash: bootstrapSecretHash,
  };
  if (bootstrap === undefined) keys.unshift(bootstrapRecord);
  else Object.assign(bootstrap, bootstrapRecord);

  function markUsed(k: StoredKey): void {
    const minute = new Date(Math.floor(now().getTime() / 60000) * 60000).toISOString();
    if (k.usedAt !== minute) {
      k.usedAt = minute;
      version += 1;
    }
  }

  function create(body: unknown): DomainResult<JsonRecord> {
    const parsed = parseCreate(body);
    if (typeof parsed === 'string') return badRequest(parsed);
    if (keys.length >= MAX_KEYS) return badRequest(`An organization can have at most ${MAX_KEYS} API keys`);
    let keyId: string | undefined;
    let keySecret: string | undefined;
    let hashes: { keyIdHash: string; keySecretHash: string; suffix: string };
    if (parsed.hashData !== null) {
      hashes = { keyIdHash: parsed.hashData.keyIdHash, keySecretHash: parsed.hashData.keySecretHash, suffix: parsed.hashData.keyIdSuffix };
    } else {
      keyId = randomAlphanumeric(20);
      keySecret = `4b1d${randomAlphanumeric(38)}`;
      hashes = { keyIdHash: sha256Base64(keyId), keySecretHash: sha256Base64(keySecret), suffix: keyId.slice(-4) };
    }
    if (keys.some((k) => hashEquals(k.keyIdHash, hashes.keyIdHash))) return badRequest('A key with this key id already exists');
    const record: StoredKey = {
      id: randomUUID(),
      name: parsed.name,
      state: parsed.state,
      roles: parsed.roles,
      keySuffix: hashes.suffix,
      createdAt: now().toISOString(),
      expireAt: parsed.expireAt,
      usedAt: null,
      ipAccessList: parsed.ipAccessList,
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

  function authenticate(keyId: string, keySecret: string): boolean {
    const idHash = sha256Base64(keyId);
    const secretHash = sha256Base64(keySecret);
    // Compare against every key so the time taken does not depend on which one matched.
    let match: StoredKey | undefined;
    for (const k of keys) if (hashEquals(k.keyIdHash, idHash) && match === undefined) match = k;
    if (match === undefined || !hashEquals(match.keySecretHash, secretHash)) return false;
    if (match.id !== BOOTSTRAP_ID) {
      if (match.state !== 'enabled') return false;
      if (match.expireAt !== null && Date.parse(match.expireAt) <= now().getTime()) return false;
    }
    markUsed(match);
    return true;
  }

  return {
    list: () => ok(keys.map(output)),
    create,
    authenticate,
    snapshot: () => ({ keys: structuredClone(keys) as unknown as JsonRecord[] }),
    get version() {
      return version;
    },
  };
}
