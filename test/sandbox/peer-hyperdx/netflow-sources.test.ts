/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/netflow-sources.int.test.ts`
 * (ba5fa67d, newer than b52a6fa8). `Source.findById(...).lean()` reads the sandbox's stored row;
 * `Source.countDocuments({kind: netflow})` counts the stored netflow rows.
 */
import { describe, expect, it } from 'vitest';
import { fixtures, usePeer } from './support.js';

const peer = usePeer();
const path = '/api/v2/sources';
const mappings = {
  bytesExpression: 'Bytes',
  packetsExpression: 'Packets',
  srcAddrExpression: 'SrcAddr',
  dstAddrExpression: 'DstAddr',
  srcPortExpression: 'SrcPort',
  dstPortExpression: 'DstPort',
  protocolExpression: 'Proto',
  samplingRateExpression: 'SamplingRate',
  exporterExpression: 'ExporterName',
  inIfExpression: 'InIfName',
  outIfExpression: 'OutIfName',
  implicitColumnExpression: 'SearchText',
};

describe('External API NetFlow sources', () => {
  const setup = async () => {
    const connectionId = (await fixtures(peer().agent).connection()).id;
    return () => ({
      kind: 'netflow',
      name: 'Network flows',
      connection: connectionId,
      from: { databaseName: 'default', tableName: 'flows' },
      timestampValueExpression: 'TimeReceived',
      defaultTableSelectExpression: 'TimeReceived, SrcAddr, DstAddr, Bytes',
      ...mappings,
    });
  };
  const authRequest = (method: 'get' | 'post' | 'put', url: string) => peer().authRequest(method, url);

  it('creates, reads, updates, and persists every mapping', async () => {
    const body = await setup();
    const created = await authRequest('post', path).send(body()).expect(200);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject(body());
    const read = await authRequest('get', `${path}/${id}`).expect(200);
    expect(read.body.data).toMatchObject(body());
    const updated = {
      ...body(),
      name: 'Updated flows',
      ...Object.fromEntries(Object.entries(mappings).map(([key, value]) => [key, `(${value})`])),
    };
    await authRequest('put', `${path}/${id}`).send(updated).expect(200);
    const readUpdate = await authRequest('get', `${path}/${id}`).expect(200);
    expect(readUpdate.body.data).toMatchObject(updated);
    expect(peer().stored('sources', id)).toMatchObject({ ...updated, connection: expect.anything() });
  });

  it.each([
    'defaultTableSelectExpression',
    'bytesExpression',
    'packetsExpression',
    'srcAddrExpression',
    'dstAddrExpression',
    'srcPortExpression',
    'dstPortExpression',
    'protocolExpression',
  ])('rejects create and update missing %s without changing saved mappings', async (field) => {
    const body = await setup();
    const invalid = { ...body(), [field]: undefined };
    await authRequest('post', path).send(invalid).expect(400);
    expect(
      peer()
        .storedAll('sources')
        .filter((s) => s.kind === 'netflow'),
    ).toHaveLength(0);
    const created = await authRequest('post', path).send(body()).expect(200);
    const id = created.body.data.id;
    await authRequest('put', `${path}/${id}`).send(invalid).expect(400);
    const read = await authRequest('get', `${path}/${id}`).expect(200);
    expect(read.body.data).toMatchObject(body());
  });
});
