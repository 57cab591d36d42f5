import { describe, expect, it } from 'vitest';
import type { JsonRecord } from './contract.js';
import { createKeysDomain, sha256Base64 } from './keys.js';
import { failure, value } from './test-helpers.js';

const bootstrap = { keyId: 'SANDBOXKEYID00000001', keySecret: '4b1dSandboxBootstrapSecret0000000000000000' };

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
    expect(d.authenticate(keyId, keySecret)).toBe(true);
    expect(d.authenticate(keyId, `${keySecret.slice(0, -1)}x`)).toBe(false);
    expect(d.authenticate('unknown', keySecret)).toBe(false);
    expect(d.authenticate(bootstrap.keyId, bootstrap.keySecret)).toBe(true);
    expect(d.authenticate(bootstrap.keyId, 'wrong')).toBe(false);
    const listed = JSON.stringify(value(d.list()));
    expect(listed).not.toContain(keySecret);
    expect(listed).not.toContain(keyId);
    expect(JSON.stringify(d.snapshot())).not.toContain(keySecret);
    expect(value(d.list())).toHaveLength(2);
  });

  it('refuses disabled and expired keys', () => {
    const { d, clock } = setup();
    const disabled = value(d.create({ name: 'off', roles: ['admin'], state: 'disabled' }));
    expect(d.authenticate(disabled.keyId as string, disabled.keySecret as string)).toBe(false);
    const expiring = value(d.create({ name: 'soon', roles: ['admin'], expireAt: '2026-09-01T12:01:00Z' }));
    expect(d.authenticate(expiring.keyId as string, expiring.keySecret as string)).toBe(true);
    clock.advance(60_000);
    expect(d.authenticate(expiring.keyId as string, expiring.keySecret as string)).toBe(false);
  });

  it('validates the create body', () => {
    const { d } = setup();
    expect(failure(d.create({ name: '', roles: ['admin'] })).status).toBe(400);
    expect(failure(d.create({ name: 'x'.repeat(51), roles: ['admin'] })).status).toBe(400);
    expect(failure(d.create({ name: 'a', roles: [] })).message).toBe('roles must contain at least 1 element');
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
      d.create({ name: 'hashed', roles: ['query_endpoints'], hashData: { keyIdHash: sha256Base64(keyId), keyIdSuffix: keyId.slice(-4), keySecretHash: sha256Base64(keySecret) } }),
    );
    expect(res).not.toHaveProperty('keyId');
    expect(res).not.toHaveProperty('keySecret');
    expect((res.key as JsonRecord).keySuffix).toBe('6789');
    expect(d.authenticate(keyId, keySecret)).toBe(true);
    expect(d.authenticate(keyId, `4b1d${'b'.repeat(38)}`)).toBe(false);
    expect(failure(d.create({ name: 'bad', roles: ['admin'], hashData: { keyIdHash: 'nope', keyIdSuffix: 'abcd', keySecretHash: sha256Base64('x') } })).status).toBe(400);
  });

  it('round-trips through a snapshot', () => {
    const { d } = setup();
    const res = value(d.create({ name: 'persisted', roles: ['admin', 'developer'] }));
    expect(d.authenticate(res.keyId as string, res.keySecret as string)).toBe(true);
    const snap = d.snapshot();
    const restored = createKeysDomain({ bootstrap, snapshot: JSON.parse(JSON.stringify(snap)) as JsonRecord });
    expect(value(restored.list())).toEqual(value(d.list()));
    expect(restored.authenticate(res.keyId as string, res.keySecret as string)).toBe(true);
    expect(restored.authenticate(bootstrap.keyId, bootstrap.keySecret)).toBe(true);
    expect((value(d.list())[1] as JsonRecord).usedAt).toBe('2026-09-01T12:00:00.000Z');
  });
});
