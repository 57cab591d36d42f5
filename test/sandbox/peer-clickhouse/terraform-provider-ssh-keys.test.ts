/**
 * ClickPipes SSH key resources and GCP workload identity (issue 49 item 4), held to what
 * ClickHouse/terraform-provider-clickhouse sends and reads: internal/api/clickpipe_ssh_key.go @ 360ae50e and
 * clickpipe_ssh_key_models.go @ 7cbaca48 (routes, `CreateSSHKey`, `SSHKey`), resource/clickpipe_ssh_key.go
 * @ 115dda0c (immutable, name unique, description ≤ 255, port 22), resource/clickpipe_ssh_key_resource_id_test.go
 * @ 03f45928 (a pipe names the key; create-only) and resource/clickpipe_workload_identity_test.go @ 62f99a9d.
 * The provider has no client test of the key routes: these port its models and its resource's rules.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { cloud, errorEnvelope, sandbox } from './support.js';

/** `SSHKey` (clickpipe_ssh_key_models.go): every member the provider reads, and nothing that could hold a private key. */
const sshKey = z.strictObject({
  id: z.uuid(),
  serviceId: z.uuid(),
  name: z.string(),
  description: z.string(),
  host: z.string(),
  port: z.number().int(),
  username: z.string(),
  publicKey: z.string().regex(/^ssh-ed25519 [A-Za-z0-9+/]+=* \S+$/),
  status: z.enum(['pending', 'active', 'failed']),
  statusMessage: z.string(),
  lastValidatedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

const BASTION = {
  name: 'production-bastion',
  description: 'Bastion for the prod VPC',
  host: 'bastion.example.com',
  port: 22,
  username: 'clickpipes',
};

const kafkaPipe = (source: Record<string, unknown>) => ({
  name: `kafka-${Math.random().toString(36).slice(2, 8)}`,
  source: { kafka: { type: 'msk', format: 'JSONEachRow', brokers: 'broker:9092', topics: 'test-topic', ...source } },
  destination: { database: 'default', table: 't', managedTable: false },
});

describe('clickpipe_ssh_key.go: ListSSHKeys, GetSSHKey, CreateSSHKey, ValidateSSHKey, DeleteSSHKey', () => {
  it('creates a pending key whose public half only is answered, lists and gets it, validates it, deletes it', async () => {
    const api = cloud(await sandbox());
    const root = `${api.service}/clickpipesSshKeyResources`;
    const created = sshKey.parse(await api.result('POST', root, BASTION));
    expect(created).toMatchObject({ ...BASTION, status: 'pending', lastValidatedAt: null });
    // The Ed25519 wire form: string "ssh-ed25519", then the 32-byte key.
    const blob = Buffer.from(created.publicKey.split(' ')[1] ?? '', 'base64');
    expect(blob.length).toBe(4 + 11 + 4 + 32);
    expect(JSON.stringify(await api.result('GET', root))).not.toMatch(/PRIVATE|privateKey/i);

    expect(
      z
        .array(sshKey)
        .parse(await api.result('GET', root))
        .map((k) => k.id),
    ).toEqual([created.id]);
    expect(sshKey.parse(await api.result('GET', `${root}/${created.id}`))).toEqual(created);

    const validated = sshKey.parse(await api.result('POST', `${root}/${created.id}/validate`, {}));
    expect(validated).toMatchObject({ status: 'active', publicKey: created.publicKey });
    expect(validated.lastValidatedAt).not.toBeNull();

    const deleted = await api.call('DELETE', `${root}/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).not.toHaveProperty('result');
    const again = await api.call('GET', `${root}/${created.id}`);
    expect(again.status).toBe(404);
    expect(errorEnvelope.parse(again.body).error).toBe('NOT_FOUND: SSH key resource not found');
  });

  it('a bastion it cannot reach fails validation with a status message; port defaults to 22', async () => {
    const api = cloud(await sandbox());
    const root = `${api.service}/clickpipesSshKeyResources`;
    const { port: _port, ...noPort } = { ...BASTION, host: 'bastion.example.invalid' };
    const created = sshKey.parse(await api.result('POST', root, noPort));
    expect(created.port).toBe(22);
    const failed = sshKey.parse(await api.result('POST', `${root}/${created.id}/validate`, {}));
    expect(failed.status).toBe('failed');
    expect(failed.statusMessage).toMatch(/bastion\.example\.invalid:22/);
  });

  it('refuses what the resource refuses: a taken name, a long description, no host, an update, unknown members', async () => {
    const api = cloud(await sandbox());
    const root = `${api.service}/clickpipesSshKeyResources`;
    const created = sshKey.parse(await api.result('POST', root, BASTION));
    const bad = async (method: string, path: string, body: unknown) => {
      const res = await api.call(method, path, body);
      return { status: res.status, error: res.body === undefined ? undefined : errorEnvelope.parse(res.body).error };
    };
    expect(await bad('POST', root, BASTION)).toEqual({ status: 400, error: expect.stringMatching(/^BAD_REQUEST: .*already exists/) });
    expect((await bad('POST', root, { ...BASTION, name: 'x', description: 'd'.repeat(256) })).status).toBe(400);
    expect(await bad('POST', root, { ...BASTION, name: 'y', host: undefined })).toEqual({
      status: 400,
      error: 'BAD_REQUEST: host: Required',
    });
    expect((await bad('POST', root, { ...BASTION, name: 'z', privateKey: 'x' })).error).toMatch(/can't be validated: privateKey/);
    // No update operation: all attributes are immutable (the provider replaces the resource).
    expect(await bad('PATCH', `${root}/${created.id}`, { description: 'new' })).toEqual({ status: 404, error: undefined });
  });
});

describe('clickpipe_ssh_key_resource_id_test.go: a pipe names the key by sshKeyResourceId', () => {
  it('a Kafka pipe created with the key reads it back; PATCH cannot change it; the key in use is not deleted', async () => {
    const api = cloud(await sandbox());
    const root = `${api.service}/clickpipesSshKeyResources`;
    const key = sshKey.parse(await api.result('POST', root, BASTION));
    const iam = { authentication: 'IAM_ROLE', iamRole: 'arn:aws:iam::123456789012:role/MyRole' };
    const pipe = z
      .looseObject({ id: z.string(), source: z.looseObject({ kafka: z.looseObject({ sshKeyResourceId: z.string() }) }) })
      .parse(await api.result('POST', `${api.service}/clickpipes`, kafkaPipe({ ...iam, sshKeyResourceId: key.id })));
    expect(pipe.source.kafka.sshKeyResourceId).toBe(key.id);

    const patched = await api.call('PATCH', `${api.service}/clickpipes/${pipe.id}`, { source: { kafka: { sshKeyResourceId: key.id } } });
    expect(errorEnvelope.parse(patched.body).error).toBe('BAD_REQUEST: source.kafka.sshKeyResourceId is immutable');
    const unknown = await api.call('POST', `${api.service}/clickpipes`, kafkaPipe({ ...iam, sshKeyResourceId: crypto.randomUUID() }));
    expect(errorEnvelope.parse(unknown.body).error).toMatch(
      /^BAD_REQUEST: source\.kafka\.sshKeyResourceId: SSH key resource .* not found$/,
    );

    const inUse = await api.call('DELETE', `${root}/${key.id}`);
    const refused = errorEnvelope.parse(inUse.body);
    expect(refused).toMatchObject({ status: 409, error: expect.stringMatching(/^CONFLICT: SSH key resource is used by ClickPipe kafka-/) });
    expect((await api.call('DELETE', `${api.service}/clickpipes/${pipe.id}`)).status).toBe(200);
    expect((await api.call('DELETE', `${root}/${key.id}`)).status).toBe(200);
  });
});

describe('clickpipe_workload_identity_test.go: SERVICE_ACCOUNT_WORKLOAD_IDENTITY', () => {
  const WI = 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY';
  const gcs = (extra: Record<string, unknown>) => ({
    name: 'gcs',
    source: { objectStorage: { type: 'gcs', format: 'JSONEachRow', url: 'gs://bucket/events/*.json', authentication: WI, ...extra } },
    destination: { database: 'default', table: 't', managedTable: false },
  });
  const pubsub = (authentication: string, extra: Record<string, unknown>) => ({
    name: 'pubsub',
    source: {
      pubsub: { format: 'JSONEachRow', projectId: 'my-gcp-project', topic: 'events', authentication, seekType: 'LATEST', ...extra },
    },
    destination: { database: 'default', table: 't', managedTable: false },
  });

  it('accepts credentialless gcmk Kafka, GCS and Pub/Sub', async () => {
    const api = cloud(await sandbox());
    for (const body of [kafkaPipe({ type: 'gcmk', authentication: WI }), gcs({}), pubsub(WI, {})]) {
      const res = await api.call('POST', `${api.service}/clickpipes`, body);
      expect(res.status, res.text).toBe(200);
    }
  });

  it('rejects workload identity on another source type or with credentials; SERVICE_ACCOUNT still needs its key', async () => {
    const api = cloud(await sandbox());
    const error = async (body: unknown) => errorEnvelope.parse((await api.call('POST', `${api.service}/clickpipes`, body)).body).error;
    expect(await error(kafkaPipe({ authentication: WI }))).toMatch(/only supported for Google Cloud Managed Kafka/);
    expect(await error(kafkaPipe({ type: 'gcmk', authentication: WI, credentials: { username: 'u', password: 'p' } }))).toMatch(
      /source\.kafka\.credentials must not be set/,
    );
    expect(await error(gcs({ type: 's3' }))).toMatch(/only supported for Google Cloud Storage/);
    expect(await error(gcs({ serviceAccountKey: 'key' }))).toMatch(/serviceAccountKey must not be set/);
    expect(await error(pubsub(WI, { serviceAccountKey: 'base64-key' }))).toMatch(/serviceAccountKey must not be set/);
    expect(await error(pubsub('SERVICE_ACCOUNT', {}))).toBe('BAD_REQUEST: source.pubsub.serviceAccountKey: Required');
  });
});
