import { describe, expect, it } from 'vitest';
import { sensitivePaths, maskSensitive } from '../sensitive.js';
import { pipeSpecSchema } from './schema.js';

const messages = (input: unknown) => {
  const r = pipeSpecSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('pipe spec schema', () => {
  it('identifies a pipe by id and/or name', () => {
    expect(messages({ name: 'clicks-kinesis', state: 'running' })).toEqual([]);
    expect(messages({ id: 'p1', name: 'renamed' })).toEqual([]);
    expect(messages({ state: 'running' })[0]).toContain('give spec.id, spec.name, or both');
  });

  it('bounds settings and scaling, and takes one source kind', () => {
    expect(messages({ name: 'p', settings: { object_storage_concurrency: 36 } })[0]).toContain('settings.object_storage_concurrency');
    expect(messages({ name: 'p', scaling: { replicas: 41 } })[0]).toContain('scaling.replicas');
    expect(messages({ name: 'p', scaling: { replicaMemoryGb: 0.25 } })[0]).toContain('scaling.replicaMemoryGb');
    expect(messages({ name: 'p', source: { kafka: {}, kinesis: {} } })[0]).toContain('exactly one of');
    expect(messages({ name: 'p', source: { kafka: { brokers: 'x' } } })[0]).toContain('source.kafka');
  });

  it('takes SERVICE_ACCOUNT_WORKLOAD_IDENTITY for Kafka, object storage and Pub/Sub, with no credential beside it', () => {
    const WI = 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY';
    expect(messages({ name: 'p', source: { kafka: { authentication: WI } } })).toEqual([]);
    expect(messages({ name: 'p', source: { objectStorage: { authentication: WI } } })).toEqual([]);
    expect(messages({ name: 'p', source: { pubsub: { authentication: WI, ackDeadline: 30 } } })).toEqual([]);
    expect(messages({ name: 'p', source: { kinesis: { authentication: WI } } })[0]).toContain('source.kinesis.authentication');
    expect(messages({ name: 'p', source: { pubsub: { authentication: WI, serviceAccountKey: 'k' } } })).toEqual([
      expect.stringMatching(/^source\.pubsub\.serviceAccountKey: serviceAccountKey cannot go with SERVICE_ACCOUNT_WORKLOAD_IDENTITY/),
    ]);
    expect(
      messages({ name: 'p', source: { kafka: { authentication: WI, iamRole: 'arn', credentials: { username: 'u', password: 'p' } } } }),
    ).toEqual([expect.stringMatching(/^source\.kafka\.credentials: /), expect.stringMatching(/^source\.kafka\.iamRole: /)]);
  });

  it('marks credentials, access keys, connection strings and service account keys sensitive', () => {
    const paths = sensitivePaths(pipeSpecSchema).map((p) => p.join('.'));
    expect(paths.sort()).toEqual([
      'source.kafka.credentials',
      'source.kinesis.accessKey',
      'source.objectStorage.accessKey',
      'source.objectStorage.connectionString',
      'source.objectStorage.serviceAccountKey',
      'source.postgres.credentials',
      'source.pubsub.serviceAccountKey',
    ]);
    const spec = pipeSpecSchema.parse({
      name: 'k',
      source: { kinesis: { authentication: 'IAM_USER', accessKey: { accessKeyId: 'AKIA', secretKey: 'shh' } } },
    });
    const masked = maskSensitive(spec, sensitivePaths(pipeSpecSchema));
    expect(masked.source?.kinesis).toEqual({ authentication: 'IAM_USER', accessKey: '(sensitive)' });
    expect(JSON.stringify(masked)).not.toContain('shh');
    expect(spec.source?.kinesis?.accessKey?.secretKey).toBe('shh');
  });
});
