/**
 * Organization API keys (hosted-api §4): the secret is returned once at creation; the store
 * keeps only SHA-256 hashes (so `--data` files hold no usable key) and compares in constant time.
 */
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import * as z from 'zod';
import type { JsonRecord } from './contract.js';
import type { KeysDomain, KeysDomainOptions } from './hosted-contract.js';
import { badRequest, ok } from './result.js';

interface StoredKey {
  record: JsonRecord;
  keyIdHash: string;
  keySecretHash: string;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const ipEntry = z.strictObject({
  source: z.string().refine((s) => {
    const [ip, bits, ...rest] = s.split('/');
    return rest.length === 0 && isIP(ip ?? '') !== 0 && (bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= 128));
  }, 'must be an IP address or a CIDR block'),
  description: z.string().max(255).optional(),
});

const createBody = z.strictObject({
  name: z.string().min(1).max(50),
  roles: z.array(z.enum(['admin', 'developer', 'query_endpoints'])).min(1, 'roles must have at least 1 element'),
  assignedRoleIds: z.array(z.uuid()).optional(),
  state: z.enum(['enabled', 'disabled']).default('enabled'),
  expireAt: z.iso.datetime({ offset: true }).nullish().or(z.literal('')),
  ipAccessList: z.array(ipEntry).optional(),
  hashData: z.strictObject({ keyIdHash: z.string().min(1), keyIdSuffix: z.string().length(4), keySecretHash: z.string().min(1) }).optional(),
});

function hash(value: string): string {
  return createHash('sha256').update(value).digest('base64');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function secret(): string {
  let s = '4b1d';
  for (let i = 0; i < 38; i++) s += ALNUM[randomInt(ALNUM.length)] ?? 'x';
  return s;
}

export function createKeysDomain(opts: KeysDomainOptions): KeysDomain {
  const now = opts.now ?? (() => new Date());
  const restored = opts.snapshot as unknown as { keys: StoredKey[]; version: number } | undefined;
  const state = restored ?? { keys: [], version: 0 };
  const bootstrap = { id: hash(opts.bootstrap.keyId), secret: hash(opts.bootstrap.keySecret) };

  return {
    get version() {
      return state.version;
    },
    list: () => ok(state.keys.map((k) => k.record)),
    create(body) {
      const parsed = createBody.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return badRequest(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body');
      }
      const req = parsed.data;
      const keyId = req.hashData ? undefined : randomBytes(10).toString('hex').toUpperCase();
      const keySecret = req.hashData ? undefined : secret();
      const record: JsonRecord = {
        id: randomUUID(),
        name: req.name,
        state: req.state,
        roles: req.roles,
        assignedRoles: [],
        keySuffix: req.hashData ? req.hashData.keyIdSuffix : (keyId ?? '').slice(-4),
        createdAt: now().toISOString(),
        expireAt: req.expireAt ? new Date(req.expireAt).toISOString() : null,
        ipAccessList: (req.ipAccessList ?? []).map((e) => ({ source: e.source, description: e.description ?? '' })),
      };
      state.keys.push({
        record,
        keyIdHash: req.hashData?.keyIdHash ?? hash(keyId ?? ''),
        keySecretHash: req.hashData?.keySecretHash ?? hash(keySecret ?? ''),
      });
      state.version += 1;
      const result: JsonRecord = keyId && keySecret ? { key: record, keyId, keySecret } : { key: record };
      return ok(result);
    },
    authenticate(keyId, keySecret) {
      const idHash = hash(keyId);
      const secretHash = hash(keySecret);
      if (same(idHash, bootstrap.id) && same(secretHash, bootstrap.secret)) return true;
      const t = now().getTime();
      return state.keys.some(
        (k) =>
          same(k.keyIdHash, idHash) &&
          same(k.keySecretHash, secretHash) &&
          k.record.state === 'enabled' &&
          (typeof k.record.expireAt !== 'string' || Date.parse(k.record.expireAt) > t),
      );
    },
    snapshot: () => JSON.parse(JSON.stringify(state)) as JsonRecord,
  };
}
