/**
 * The 2026-09-05 live Cloud spec's ClickPipes deltas (reference/hosted-api.md §0.1; read from
 * api-evangelist/clickhouse openapi/clickhouse-cloud-api-openapi.json @ 3d2d9334): no client
 * tests exist for them yet, so these hold the sandbox to the spec's operation and schema.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { cloud, errorEnvelope, sandbox } from './support.js';

/** `clickPipesServiceContextGet`'s result. */
const serviceContext = z.strictObject({
  gcpWorkloadIdentity: z.strictObject({ supported: z.boolean(), ready: z.boolean().nullable(), principal: z.string().nullable() }),
});

describe('clickPipesServiceContextGet (GET …/services/{serviceId}/clickpipes/context)', () => {
  it('answers 200 with the service context, not a ClickPipe lookup; an unknown pipe id is still the JSON NOT_FOUND envelope', async () => {
    const api = cloud(await sandbox());
    const context = serviceContext.parse(await api.result('GET', `${api.service}/clickpipes/context`));
    expect(context.gcpWorkloadIdentity).toEqual({ supported: false, ready: null, principal: null });

    const unknown = await api.call('GET', `${api.service}/clickpipes/3f1c2a9e-5b7d-4e8f-9a6b-1c2d3e4f5a6b`);
    expect(unknown.status).toBe(404);
    expect(unknown.contentType).toMatch(/application\/json/);
    expect(errorEnvelope.parse(unknown.body)).toMatchObject({ status: 404, error: 'NOT_FOUND: ClickPipe not found' });
  });

  it('is read-only: another method on it is an unserved route (the gateway HTML 404), not a pipe update', async () => {
    const api = cloud(await sandbox());
    const patched = await api.call('PATCH', `${api.service}/clickpipes/context`, { name: 'x' });
    expect(patched.status).toBe(404);
    expect(patched.body).toBeUndefined();
  });
});

describe('ClickStack alerts on the Cloud API (AlertSource: saved_search, tile)', () => {
  it('an inline alert is refused with the schema message: the 2026-09-05 spec does not list the source', async () => {
    const api = cloud(await sandbox());
    const res = await api.call('POST', `${api.service}/clickstack/alerts`, {
      source: 'inline',
      chartConfig: {},
      threshold: 1,
      interval: '5m',
      thresholdType: 'above',
    });
    expect(res.status).toBe(400);
    expect(errorEnvelope.parse(res.body).error).toMatch(/^BAD_REQUEST: Body validation failed: source: /);
  });
});
