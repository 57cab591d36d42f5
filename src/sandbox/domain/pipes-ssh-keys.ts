/**
 * ClickPipes SSH key resources of one hosted service (`…/services/{id}/clickpipesSshKeyResources`),
 * as ClickHouse/terraform-provider-clickhouse uses them (internal/api/clickpipe_ssh_key.go @ 360ae50e,
 * clickpipe_ssh_key_models.go @ 7cbaca48, resource/clickpipe_ssh_key.go): list, get, create,
 * delete and validate; no update. The server makes an Ed25519 key pair and answers only its
 * OpenSSH public key: the private half is dropped here at once (the sandbox has no bastion to
 * use it on), so no answer, snapshot or log can ever hold it. Status: `pending` until validated,
 * then `active` or `failed` (the validate call answers the record with the outcome).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { DomainResult, JsonRecord } from './contract.js';
import { isPlainObject } from './pipes-settings.js';
import { badRequest, conflict, notFoundJson, ok } from './result.js';

export interface StoredSshKey {
  id: string;
  serviceId: string;
  name: string;
  description: string;
  host: string;
  port: number;
  username: string;
  publicKey: string;
  status: 'pending' | 'active' | 'failed';
  statusMessage: string;
  lastValidatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SshKeysDomain {
  list(): DomainResult<JsonRecord[]>;
  get(id: string): DomainResult<JsonRecord>;
  create(body: unknown): DomainResult<JsonRecord>;
  /** Refused (409) while `inUseBy(id)` names a pipe (a sandbox decision: the source is silent). */
  delete(id: string, inUseBy: (id: string) => string | undefined): DomainResult<JsonRecord>;
  validate(id: string): DomainResult<JsonRecord>;
  has(id: string): boolean;
  snapshot(): JsonRecord[];
}

const FIELDS = new Set(['name', 'description', 'host', 'port', 'username']);

/** A bastion the sandbox "cannot reach": a host under `.invalid`, which never resolves (RFC 6761 §6.4). */
function unreachable(host: string): boolean {
  return /(^|\.)invalid\.?$/i.test(host);
}

/** The OpenSSH form of an Ed25519 public key: `ssh-ed25519 <base64(string type, string key)>`. */
function openSshPublicKey(name: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const type = Buffer.from('ssh-ed25519');
  const blob = Buffer.concat([u32(type.length), type, u32(raw.length), raw]);
  return `ssh-ed25519 ${blob.toString('base64')} clickpipes-${name.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

type NewKey = Pick<StoredSshKey, 'name' | 'description' | 'host' | 'port' | 'username'>;

/** The create body, fully checked; a message naming the first bad field otherwise. */
function parseNewKey(body: unknown): NewKey | string {
  if (!isPlainObject(body)) return 'body must be an object';
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) return `request body property can't be validated: ${key}`;
  const { name, description, host, port, username } = body;
  if (typeof name !== 'string' || name.length < 1 || name.length > 255) return 'name must be a string of 1 to 255 characters';
  // The API caps the description at 255 characters and answers a longer one with a 400 (resource/clickpipe_ssh_key.go).
  if (description !== undefined && (typeof description !== 'string' || description.length > 255))
    return 'description must be a string of at most 255 characters';
  if (typeof host !== 'string' || host === '') return 'host: Required';
  if (typeof username !== 'string' || username === '') return 'username: Required';
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535))
    return 'port must be an integer from 1 to 65535';
  return { name, description: description ?? '', host, port: port ?? 22, username };
}

export function createSshKeysDomain(opts: { serviceId: string; now: () => Date; snapshot?: unknown; changed: () => void }): SshKeysDomain {
  const keys: StoredSshKey[] = Array.isArray(opts.snapshot) ? (structuredClone(opts.snapshot) as StoredSshKey[]) : [];
  const find = (id: string) => keys.find((k) => k.id === id);
  const missing = () => notFoundJson('SSH key resource not found');
  const output = (k: StoredSshKey): JsonRecord => ({ ...k });

  return {
    list: () => ok(keys.map(output)),
    get(id) {
      const k = find(id);
      return k ? ok(output(k)) : missing();
    },
    create(body) {
      const parsed = parseNewKey(body);
      if (typeof parsed === 'string') return badRequest(parsed);
      // Names are unique per service (resource/clickpipe_ssh_key.go); the message is the sandbox's.
      if (keys.some((k) => k.name === parsed.name)) return badRequest(`an SSH key resource named ${parsed.name} already exists`);
      const at = opts.now().toISOString();
      const key: StoredSshKey = {
        id: randomUUID(),
        serviceId: opts.serviceId,
        ...parsed,
        publicKey: openSshPublicKey(parsed.name),
        status: 'pending',
        statusMessage: '',
        lastValidatedAt: null,
        createdAt: at,
        updatedAt: at,
      };
      keys.push(key);
      opts.changed();
      return ok(output(key));
    },
    delete(id, inUseBy) {
      const i = keys.findIndex((k) => k.id === id);
      if (i < 0) return missing();
      const pipe = inUseBy(id);
      if (pipe !== undefined) return conflict(`SSH key resource is used by ClickPipe ${pipe}`);
      keys.splice(i, 1);
      opts.changed();
      return ok({});
    },
    validate(id) {
      const k = find(id);
      if (!k) return missing();
      const at = opts.now().toISOString();
      const failed = unreachable(k.host);
      k.status = failed ? 'failed' : 'active';
      k.statusMessage = failed ? `could not connect to ${k.host}:${k.port}: host not found` : '';
      k.lastValidatedAt = at;
      k.updatedAt = at;
      opts.changed();
      return ok(output(k));
    },
    has: (id) => find(id) !== undefined,
    snapshot: () => structuredClone(keys) as unknown as JsonRecord[],
  };
}
