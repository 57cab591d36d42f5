/**
 * API key request bodies (reference/hosted-api.md §4.2; clickhousectl's ApiKeyPostRequest and
 * ApiKeyPatchRequest models): roles by UUID (`assignedRoleIds`) or by deprecated legacy name
 * (`roles`), IP access lists as full replacement lists, `expireAt: null` clearing the expiry.
 */
import { BlockList, isIP } from 'node:net';
import { isPlainObject } from './pipes-settings.js';

export const LEGACY_ROLES = ['admin', 'developer', 'query_endpoints'] as const;
export type LegacyRole = (typeof LEGACY_ROLES)[number];

/** The organization's system roles; the legacy role names map onto them. */
export const SYSTEM_ROLES: readonly { roleId: string; roleName: string; legacy: LegacyRole }[] = [
  { roleId: 'e0000000-0000-4000-8000-000000000001', roleName: 'Admin', legacy: 'admin' },
  { roleId: 'e0000000-0000-4000-8000-000000000002', roleName: 'Developer', legacy: 'developer' },
  { roleId: 'e0000000-0000-4000-8000-000000000003', roleName: 'Query Endpoints', legacy: 'query_endpoints' },
];

export interface IpEntry {
  source: string;
  description: string;
}

export interface HashData {
  keyIdHash: string;
  keyIdSuffix: string;
  keySecretHash: string;
}

export interface KeyCreate {
  name: string;
  roleIds: string[];
  state: 'enabled' | 'disabled';
  expireAt: string | null;
  ipAccessList: IpEntry[];
  hashData: HashData | null;
}

/** Only the members sent; `expireAt: null` clears the expiry. */
export type KeyPatch = Partial<Omit<KeyCreate, 'hashData'>>;

const CREATE_FIELDS = new Set(['name', 'roles', 'assignedRoleIds', 'state', 'expireAt', 'ipAccessList', 'hashData']);
const PATCH_FIELDS = new Set(['name', 'roles', 'assignedRoleIds', 'state', 'expireAt', 'ipAccessList']);

/** An IPv4/IPv6 address or CIDR block, as `[address, prefix, family]`. */
function parseSource(source: string): [string, number, 'ipv4' | 'ipv6'] | null {
  const [addr, prefix, ...rest] = source.split('/');
  if (addr === undefined || rest.length > 0) return null;
  const family = isIP(addr);
  if (family === 0) return null;
  const max = family === 4 ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return null;
  const bits = prefix === undefined ? max : Number(prefix);
  return bits <= max ? [addr, bits, family === 4 ? 'ipv4' : 'ipv6'] : null;
}

/** Whether `ip` (as the socket reports it, IPv4-mapped IPv6 included) is in the list. An empty list admits nobody. */
export function ipAllowed(list: readonly IpEntry[], ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped?.[1] ?? ip;
  const family = isIP(address);
  if (family === 0) return false;
  const blocks = new BlockList();
  for (const e of list) {
    const parsed = parseSource(e.source);
    if (parsed) blocks.addSubnet(...parsed);
  }
  return blocks.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function isSha256Base64(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

type Result<T> = { ok: true; value: T } | { ok: false; error: string };
const good = <T>(value: T): Result<T> => ({ ok: true, value });
const bad = (error: string): { ok: false; error: string } => ({ ok: false, error });

function parseName(name: unknown): Result<string> {
  return typeof name === 'string' && name.trim().length >= 1 && name.length <= 50
    ? good(name)
    : bad('name must be a string of 1 to 50 characters');
}

function parseIpList(raw: unknown): Result<IpEntry[]> {
  if (!Array.isArray(raw)) return bad('ipAccessList must be an array');
  const out: IpEntry[] = [];
  for (const [i, e] of raw.entries()) {
    if (!isPlainObject(e) || typeof e.source !== 'string' || parseSource(e.source) === null)
      return bad(`ipAccessList.${i}.source must be an IP address or CIDR`);
    if (e.description !== undefined && e.description !== null && typeof e.description !== 'string')
      return bad(`ipAccessList.${i}.description must be a string`);
    out.push({ source: e.source, description: typeof e.description === 'string' ? e.description : '' });
  }
  return good(out);
}

function parseExpiry(raw: unknown): Result<string | null> {
  if (raw === null || raw === '') return good(null);
  if (typeof raw !== 'string' || Number.isNaN(Date.parse(raw))) return bad('expireAt must be an ISO-8601 date-time or null');
  return good(new Date(raw).toISOString());
}

/** Legacy names and role UUIDs, merged into the role ids they stand for; undefined when neither was sent. */
function parseRoles(body: Record<string, unknown>): Result<string[] | undefined> {
  const { roles, assignedRoleIds } = body;
  if (roles === undefined && assignedRoleIds === undefined) return good(undefined);
  const ids: string[] = [];
  if (roles !== undefined) {
    if (!Array.isArray(roles) || roles.length < 1) return bad('roles must contain at least 1 element');
    for (const r of roles) {
      const role = SYSTEM_ROLES.find((s) => s.legacy === r);
      if (!role) return bad(`roles: ${String(r)} is not one of ${LEGACY_ROLES.join(', ')}`);
      ids.push(role.roleId);
    }
  }
  if (assignedRoleIds !== undefined) {
    if (!Array.isArray(assignedRoleIds)) return bad('assignedRoleIds must be an array of role UUIDs');
    for (const id of assignedRoleIds) {
      if (typeof id !== 'string' || !SYSTEM_ROLES.some((s) => s.roleId === id))
        return bad(`assignedRoleIds: ${String(id)} is not a role of this organization`);
      ids.push(id);
    }
  }
  return good([...new Set(ids)]);
}

function parseHashData(raw: unknown): Result<HashData> {
  if (!isPlainObject(raw)) return bad('hashData must be an object');
  if (!isSha256Base64(raw.keyIdHash)) return bad('hashData.keyIdHash must be a base64 SHA-256 hash');
  if (!isSha256Base64(raw.keySecretHash)) return bad('hashData.keySecretHash must be a base64 SHA-256 hash');
  if (typeof raw.keyIdSuffix !== 'string' || raw.keyIdSuffix.length !== 4)
    return bad('hashData.keyIdSuffix must be the last 4 characters of the key id');
  return good({ keyIdHash: raw.keyIdHash, keyIdSuffix: raw.keyIdSuffix, keySecretHash: raw.keySecretHash });
}

function parseState(raw: unknown): Result<'enabled' | 'disabled'> {
  return raw === 'enabled' || raw === 'disabled' ? good(raw) : bad('state must be enabled or disabled');
}

const ANYWHERE: IpEntry[] = [{ source: '0.0.0.0/0', description: 'Anywhere' }];

/**
 * `POST /keys`. Neither `roles` nor `assignedRoleIds` is required (clickhousectl's live key
 * lifecycle creates keys with `assignedRoleIds: []`). Without `ipAccessList` the key is usable
 * from anywhere; an empty list admits nobody (clickhousectl #829).
 */
export function parseKeyCreate(body: unknown): Result<KeyCreate> {
  if (!isPlainObject(body)) return bad('body must be an object');
  for (const key of Object.keys(body)) if (!CREATE_FIELDS.has(key)) return bad(`request body property can't be validated: ${key}`);
  const name = parseName(body.name);
  if (!name.ok) return name;
  const roleIds = parseRoles(body);
  if (!roleIds.ok) return roleIds;
  const state = body.state === undefined ? good<'enabled' | 'disabled'>('enabled') : parseState(body.state);
  if (!state.ok) return state;
  const expireAt = body.expireAt === undefined ? good(null) : parseExpiry(body.expireAt);
  if (!expireAt.ok) return expireAt;
  const ipAccessList = body.ipAccessList === undefined ? good(ANYWHERE.map((e) => ({ ...e }))) : parseIpList(body.ipAccessList);
  if (!ipAccessList.ok) return ipAccessList;
  const hashData = body.hashData === undefined ? good(null) : parseHashData(body.hashData);
  if (!hashData.ok) return hashData;
  return good({
    name: name.value,
    roleIds: roleIds.value ?? [],
    state: state.value,
    expireAt: expireAt.value,
    ipAccessList: ipAccessList.value,
    hashData: hashData.value,
  });
}

/** `PATCH /keys/{id}`: only the members sent change; `ipAccessList` replaces the whole list. */
export function parseKeyPatch(body: unknown): Result<KeyPatch> {
  if (!isPlainObject(body)) return bad('body must be an object');
  for (const key of Object.keys(body)) if (!PATCH_FIELDS.has(key)) return bad(`request body property can't be validated: ${key}`);
  const out: KeyPatch = {};
  if (body.name !== undefined) {
    const name = parseName(body.name);
    if (!name.ok) return name;
    out.name = name.value;
  }
  const roleIds = parseRoles(body);
  if (!roleIds.ok) return roleIds;
  if (roleIds.value !== undefined) out.roleIds = roleIds.value;
  if (body.state !== undefined) {
    const state = parseState(body.state);
    if (!state.ok) return state;
    out.state = state.value;
  }
  if (body.expireAt !== undefined) {
    const expireAt = parseExpiry(body.expireAt);
    if (!expireAt.ok) return expireAt;
    out.expireAt = expireAt.value;
  }
  if (body.ipAccessList !== undefined) {
    const list = parseIpList(body.ipAccessList);
    if (!list.ok) return list;
    out.ipAccessList = list.value;
  }
  return good(out);
}
