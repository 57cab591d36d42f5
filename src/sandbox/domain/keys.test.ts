import { describe, expect, it } from 'vitest';
import type { JsonRecord } from './contract.js';
import type { KeysDomain } from './hosted-contract.js';
import { createKeysDomain, sha256Base64 } from './keys.js';
import { failure, value } from './test-helpers.js';

const bootstrap = { keyId: 'SANDBOXKEYID00000001', keySecret: '4b1dSandboxBootstrapSecret0000000000000000' };

const auth = (d: KeysDomain, keyId: string, keySecret: string, ip = '127.0.0.1') => d.authenticate(keyId, keySecret, ip).ok;

function setup() {
  let t = new Date('2026-09-01T12:00:00.000Z').getTime();
  const clock = { advance: (ms: number) => (t += ms) };
  const d = createKeysDomain({ bootstrap, now: () => new Date(t) });
  return { d, clock };
}

describe('keys', () => {
  it('creates a key with a 4b1d secret that authenticates; list never shows secrets', () => {
    const { d } = setup();
    const res = value(d.create({ name: 'ci', roles: ['developer'], ipAccessList: [{ source: '203.0.113.0/24', description: 'office' }] }));
    const keyId = res.keyId as string;
    const keySecret = res.keySecret as string;
    expect(keySecret).toMatch(/^4b1d[A-Za-z0-9]{38}$/);
    const key = res.key as JsonRecord;
    expect(key.keySuffix).toBe(keyId.slice(-4));
    expect(key.state).toBe('enabled');
    expect(key.expireAt).toBeNull();
    expect(key.ipAccessList).toEqual([{ source: '203.0.113.0/24', description: 'office' }]);
    expect(auth(d, keyId, keySecret, '203.0.113.7')).toBe(true);
    expect(d.authenticate(keyId, keySecret, '127.0.0.1')).toMatchObject({ ok: false, status: 403 });
    expect(d.authenticate(keyId, `${keySecret.slice(0, -1)}${keySecret.endsWith('x') ? 'y' : 'x'}`, '203.0.113.7')).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(auth(d, 'unknown', keySecret)).toBe(false);
    expect(auth(d, bootstrap.keyId, bootstrap.keySecret)).toBe(true);
    expect(auth(d, bootstrap.keyId, 'wrong')).toBe(false);
    const listed = JSON.stringify(value(d.list()));
    expect(listed).not.toContain(keySecret);
    expect(listed).not.toContain(keyId);
    expect(JSON.stringify(d.snapshot())).not.toContain(keySecret);
    expect(value(d.list())).toHaveLength(2);
  });

  it('refuses disabled and expired keys', () => {
    const { d, clock } = setup();
    const disabled = value(d.create({ name: 'off', roles: ['admin'], state: 'disabled' }));
    expect(auth(d, disabled.keyId as string, disabled.keySecret as string)).toBe(false);
    const expiring = value(d.create({ name: 'soon', roles: ['admin'], expireAt: '2026-09-01T12:01:00Z' }));
    expect(auth(d, expiring.keyId as string, expiring.keySecret as string)).toBe(true);
    clock.advance(60_000);
    expect(auth(d, expiring.keyId as string, expiring.keySecret as string)).toBe(false);
  });

  it('validates the create body', () => {
    const { d } = setup();
    expect(failure(d.create({ name: '', roles: ['admin'] })).status).toBe(400);
    expect(failure(d.create({ name: 'x'.repeat(51), roles: ['admin'] })).status).toBe(400);
    expect(failure(d.create({ name: 'a', roles: [] })).message).toBe('roles must contain at least 1 element');
    expect(failure(d.create({ name: 'a', assignedRoleIds: ['00000000-0000-4000-8000-000000000000'] })).status).toBe(400);
    expect(failure(d.create({ name: 'a', id: 'mine' })).message).toBe("request body property can't be validated: id");
    expect(failure(d.create({ name: 'a', roles: ['owner'] })).status).toBe(400);
    expect(failure(d.create({ name: 'a', roles: ['admin'], state: 'paused' })).status).toBe(400);
    expect(failure(d.create({ name: 'a', roles: ['admin'], expireAt: 'tomorrow' })).status).toBe(400);
    expect(failure(d.create({ name: 'a', roles: ['admin'], ipAccessList: [{ source: '300.1.1.1' }] })).status).toBe(400);
    expect(failure(d.create({ name: 'a', roles: ['admin'], ipAccessList: [{ source: '10.0.0.0/33' }] })).status).toBe(400);
    expect(d.version).toBe(0);
  });

  it('accepts client-generated hashData and omits keyId/keySecret', () => {
    const { d } = setup();
    const keyId = 'ClientKeyId123456789';
    const keySecret = `4b1d${'a'.repeat(38)}`;
    const res = value(
      d.create({
        name: 'hashed',
        roles: ['query_endpoints'],
        hashData: { keyIdHash: sha256Base64(keyId), keyIdSuffix: keyId.slice(-4), keySecretHash: sha256Base64(keySecret) },
      }),
    );
    expect(res).not.toHaveProperty('keyId');
    expect(res).not.toHaveProperty('keySecret');
    expect((res.key as JsonRecord).keySuffix).toBe('6789');
    expect(auth(d, keyId, keySecret)).toBe(true);
    expect(auth(d, keyId, `4b1d${'b'.repeat(38)}`)).toBe(false);
    expect(
      failure(
        d.create({ name: 'bad', roles: ['admin'], hashData: { keyIdHash: 'nope', keyIdSuffix: 'abcd', keySecretHash: sha256Base64('x') } }),
      ).status,
    ).toBe(400);
  });

  it('round-trips through a snapshot', () => {
    const { d } = setup();
    const res = value(d.create({ name: 'persisted', roles: ['admin', 'developer'] }));
    expect(auth(d, res.keyId as string, res.keySecret as string)).toBe(true);
    const snap = d.snapshot();
    const restored = createKeysDomain({ bootstrap, snapshot: JSON.parse(JSON.stringify(snap)) as JsonRecord });
    expect(value(restored.list())).toEqual(value(d.list()));
    expect(auth(restored, res.keyId as string, res.keySecret as string)).toBe(true);
    expect(auth(restored, bootstrap.keyId, bootstrap.keySecret)).toBe(true);
    expect((value(d.list())[1] as JsonRecord).usedAt).toBe('2026-09-01T12:00:00.000Z');
  });

  it('assigns roles by UUID or legacy name, and patches state, expiry, roles and the IP list', () => {
    const { d } = setup();
    const roles = value(d.roles());
    const developer = roles.find((r) => r.name === 'Developer')?.id as string;
    const created = value(d.create({ name: 'ci', assignedRoleIds: [developer], ipAccessList: [] }));
    const key = created.key as JsonRecord;
    expect(key.assignedRoles).toEqual([{ roleId: developer, roleName: 'Developer', roleType: 'system' }]);
    expect(value(d.roles()).find((r) => r.id === developer)?.actors).toEqual([`apiKey/${key.id as string}`]);
    // An empty list admits nobody.
    expect(d.authenticate(created.keyId as string, created.keySecret as string, '127.0.0.1')).toMatchObject({ ok: false, status: 403 });
    const id = key.id as string;
    const patched = value(
      d.patch(id, { state: 'disabled', ipAccessList: [{ source: '127.0.0.0/8' }], roles: ['admin'], expireAt: '2027-01-01T00:00:00Z' }),
    );
    expect(patched).toMatchObject({
      state: 'disabled',
      roles: ['admin'],
      expireAt: '2027-01-01T00:00:00.000Z',
      ipAccessList: [{ source: '127.0.0.0/8', description: '' }],
    });
    expect(auth(d, created.keyId as string, created.keySecret as string)).toBe(false);
    expect(value(d.patch(id, { state: 'enabled', expireAt: null })).expireAt).toBeNull();
    expect(auth(d, created.keyId as string, created.keySecret as string, '::ffff:127.0.0.1')).toBe(true);
    expect(value(d.patch(id, { name: 'renamed' })).state).toBe('enabled');
    expect(failure(d.patch(id, { state: 'off' })).status).toBe(400);
    expect(failure(d.patch('nope', { name: 'x' })).status).toBe(404);
  });

  it('deletes a key, but never the one that authenticates the request', () => {
    const { d } = setup();
    const created = value(d.create({ name: 'gone' }));
    const id = (created.key as JsonRecord).id as string;
    expect(failure(d.delete(id, id)).status).toBe(400);
    value(d.delete(id, 'someone-else'));
    expect(failure(d.get(id)).status).toBe(404);
    expect(auth(d, created.keyId as string, created.keySecret as string)).toBe(false);
    expect(failure(d.delete(id, 'someone-else')).status).toBe(404);
  });
});
