/**
 * Ported from ClickHouse/clickhousectl @ d966006c49315e2920ba6baf019b31da5d3d70c7,
 * crates/clickhouse-cloud-api/tests/integration_org_test.rs, cloud_org_lifecycle, phase
 * "OpenAPI Key Lifecycle" (run against the live API in CI), its cleanup in
 * tests/common/support.rs (a 404 on delete means already gone), and the query-key steps of
 * tests/integration_test.rs (the create response's keyId/keySecret authenticate; the path id is
 * the key's resource UUID). Plus the IP access list the same requests carry, enforced.
 */
import { describe, expect, it } from 'vitest';
import { apiKeyPostResponseModel, cloud, envelope, errorEnvelope, models, sandbox } from './support.js';

describe('clickhousectl tests/integration_org_test.rs > cloud_org_lifecycle > OpenAPI Key Lifecycle', () => {
  it('openapi_key_create, openapi_key_get, openapi_key_get_list, openapi_key_update state round-trip, openapi_key_delete', async () => {
    const api = cloud(await sandbox());
    const keyName = 'clickhousectl-org-it-run1';
    // The live test's body: no deprecated roles, an explicit allow-all list.
    const body = {
      name: keyName,
      assignedRoleIds: [],
      ipAccessList: [{ source: '0.0.0.0/0', description: 'clickhousectl org integration test key' }],
      state: 'enabled',
    };
    const created = apiKeyPostResponseModel.parse(await api.result('POST', `${api.org}/keys`, body));
    expect(created.key?.name).toBe(keyName);
    const uuid = created.key?.id ?? '';
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);

    // openapi_key_get: the fields match what create returned.
    const got = models.ApiKey.parse(await api.result('GET', `${api.org}/keys/${uuid}`));
    expect(got).toMatchObject({ id: uuid, name: keyName, state: 'enabled' });

    // openapi_key_get_list: the new key appears.
    const keys = models.ApiKey.array().parse(await api.result('GET', `${api.org}/keys`));
    expect(keys.some((k) => k.id === uuid)).toBe(true);

    // openapi_key_update: enabled -> disabled, verified by GET, then restored.
    expect(models.ApiKey.parse(await api.result('PATCH', `${api.org}/keys/${uuid}`, { state: 'disabled' })).state).toBe('disabled');
    expect(models.ApiKey.parse(await api.result('GET', `${api.org}/keys/${uuid}`)).state).toBe('disabled');
    expect(models.ApiKey.parse(await api.result('PATCH', `${api.org}/keys/${uuid}`, { state: 'enabled' })).state).toBe('enabled');

    // openapi_key_delete; the cleanup's second delete sees 404 (already gone).
    const deleted = await api.call('DELETE', `${api.org}/keys/${uuid}`);
    expect(deleted.status).toBe(200);
    expect(envelope.parse(deleted.body)).not.toHaveProperty('result');
    expect((await api.call('DELETE', `${api.org}/keys/${uuid}`)).status).toBe(404);
    expect((await api.call('GET', `${api.org}/keys/${uuid}`)).status).toBe(404);
  });
});

describe('clickhousectl tests/integration_test.rs > Query API Endpoint > create query API key', () => {
  it('the created keyId/keySecret authenticate, the resource UUID names the key, and a disabled or deleted key is refused', async () => {
    const api = cloud(await sandbox());
    const created = apiKeyPostResponseModel.parse(
      await api.result('POST', `${api.org}/keys`, {
        name: 'svc-query',
        assignedRoleIds: [],
        ipAccessList: [{ source: '0.0.0.0/0', description: 'query key' }],
        state: 'enabled',
      }),
    );
    const auth = { keyId: created.keyId ?? '', keySecret: created.keySecret ?? '' };
    const uuid = created.key?.id ?? '';
    // The authentication key id is not the resource UUID (clickhousectl #829/#877).
    expect(auth.keyId).not.toBe(uuid);
    expect((await api.call('GET', `${api.org}/keys`, undefined, auth)).status).toBe(200);
    await api.result('PATCH', `${api.org}/keys/${uuid}`, { state: 'disabled' });
    expect((await api.call('GET', `${api.org}/keys`, undefined, auth)).status).toBe(401);
    await api.result('PATCH', `${api.org}/keys/${uuid}`, { state: 'enabled' });
    // "Only a key not used to authenticate the active request can be deleted" (spec, openapiKeyDelete).
    const self = await api.call('DELETE', `${api.org}/keys/${uuid}`, undefined, auth);
    expect(self.status).toBe(400);
    expect(errorEnvelope.parse(self.body).error).toMatch(/^BAD_REQUEST: /);
    expect((await api.call('DELETE', `${api.org}/keys/${uuid}`)).status).toBe(200);
    expect((await api.call('GET', `${api.org}/keys`, undefined, auth)).status).toBe(401);
  });
});

describe('ipAccessList (the list every clickhousectl key request carries) is enforced', () => {
  it('admits a key from a listed network, refuses it from any other, and an empty list admits nobody (clickhousectl #829)', async () => {
    const api = cloud(await sandbox());
    const make = async (ipAccessList: { source: string }[]) => {
      const created = apiKeyPostResponseModel.parse(
        await api.result('POST', `${api.org}/keys`, {
          name: `k${ipAccessList.length}`,
          assignedRoleIds: [],
          ipAccessList,
          state: 'enabled',
        }),
      );
      return { uuid: created.key?.id ?? '', auth: { keyId: created.keyId ?? '', keySecret: created.keySecret ?? '' } };
    };
    const loopback = await make([{ source: '127.0.0.0/8' }]);
    expect((await api.call('GET', `${api.org}/keys`, undefined, loopback.auth)).status).toBe(200);
    const elsewhere = await make([{ source: '203.0.113.0/24' }, { source: '2001:db8::/32' }]);
    const refused = await api.call('GET', `${api.org}/keys`, undefined, elsewhere.auth);
    expect(refused.status).toBe(403);
    expect(errorEnvelope.parse(refused.body).error).toContain('IP access list');
    const nobody = await make([]);
    expect((await api.call('GET', `${api.org}/keys`, undefined, nobody.auth)).status).toBe(403);
    // A PATCH replaces the whole list: now admitted.
    await api.result('PATCH', `${api.org}/keys/${elsewhere.uuid}`, { ipAccessList: [{ source: '127.0.0.1' }] });
    expect((await api.call('GET', `${api.org}/keys`, undefined, elsewhere.auth)).status).toBe(200);
  });

  it('assignedRoleIds take the organization role UUIDs and show as assignedRoles', async () => {
    const api = cloud(await sandbox());
    const roles = (await api.result('GET', `${api.org}/roles`)) as { id: string; name: string }[];
    const role = roles[0];
    expect(role?.id).toMatch(/^[0-9a-f-]{36}$/);
    const created = apiKeyPostResponseModel.parse(
      await api.result('POST', `${api.org}/keys`, { name: 'roled', assignedRoleIds: [role?.id], ipAccessList: [], state: 'enabled' }),
    );
    expect(created.key?.assignedRoles).toEqual([{ roleId: role?.id, roleName: role?.name, roleType: 'system' }]);
    const unknown = await api.call('POST', `${api.org}/keys`, { name: 'x', assignedRoleIds: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknown.status).toBe(400);
  });
});
