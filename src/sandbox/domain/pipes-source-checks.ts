/**
 * Rules across a pipe source's members that the 2026 API added (issue 49):
 * - `SERVICE_ACCOUNT_WORKLOAD_IDENTITY` (reference/hosted-api.md §0.1, 2026-09-05 spec: Kafka `gcmk`, GCS
 *   object storage, Pub/Sub): the service's own GCP principal authenticates (`GET …/clickpipes/context`),
 *   so no credentials go with it. The rules follow terraform-provider-clickhouse's
 *   `validateGCPWorkloadIdentityConfiguration` tests (resource/clickpipe_workload_identity_test.go @ 62f99a9d);
 *   the messages are the sandbox's.
 * - `sshKeyResourceId` (resource/clickpipe_ssh_key_resource_id_test.go @ 03f45928, descriptions/clickpipes_ssh_key.md):
 *   Kafka, Postgres, MySQL and MongoDB sources may name an SSH key resource of the service; set at create only.
 */
import type { JsonRecord } from './contract.js';
import { WORKLOAD_IDENTITY, type SourceKind } from './pipes-source.js';

export { WORKLOAD_IDENTITY };

/** The source type workload identity needs, per kind that has it. */
const WI_TYPE: Partial<Record<SourceKind, { member: string; value: string; what: string } | null>> = {
  kafka: { member: 'type', value: 'gcmk', what: 'Google Cloud Managed Kafka (type gcmk)' },
  objectStorage: { member: 'type', value: 'gcs', what: 'Google Cloud Storage (type gcs)' },
  pubsub: null,
};

/** The credential members workload identity replaces, per kind (secrets and plain members alike). */
const WI_CONFLICTS: Partial<Record<SourceKind, readonly string[]>> = {
  kafka: ['credentials', 'iamRole'],
  objectStorage: ['accessKey', 'serviceAccountKey', 'iamRole', 'connectionString'],
  pubsub: ['serviceAccountKey'],
};

/** The members workload identity replaces: a pipe switched to it forgets them. */
export function replacedByWorkloadIdentity(kind: SourceKind): readonly string[] {
  return WI_CONFLICTS[kind] ?? [];
}

/** Why a source's authentication cannot stand, or undefined. `secrets` are the write-only members sent with it. */
export function workloadIdentityProblem(
  kind: SourceKind,
  source: JsonRecord,
  secrets: Readonly<Record<string, string>>,
): string | undefined {
  const label = `source.${kind}`;
  if (source.authentication !== WORKLOAD_IDENTITY) {
    if (kind === 'pubsub' && secrets.serviceAccountKey === undefined) return `${label}.serviceAccountKey: Required`;
    return undefined;
  }
  const needs = WI_TYPE[kind];
  if (needs === undefined) return `${label}.authentication ${WORKLOAD_IDENTITY} is not supported for ${kind} ClickPipes`;
  if (needs !== null && source[needs.member] !== needs.value)
    return `${label}.authentication ${WORKLOAD_IDENTITY} is only supported for ${needs.what}`;
  for (const member of WI_CONFLICTS[kind] ?? []) {
    if (secrets[member] !== undefined || (source[member] !== undefined && source[member] !== null))
      return `${label}.${member} must not be set with ${WORKLOAD_IDENTITY} (the service's own identity authenticates)`;
  }
  return undefined;
}

const SSH_KEY_KINDS: readonly SourceKind[] = ['kafka', 'postgres', 'mysql', 'mongodb'];

/** Why a create's `sshKeyResourceId` cannot stand (wrong kind, unknown key), or undefined. */
export function sshKeyReferenceProblem(kind: SourceKind, source: JsonRecord, exists: (id: string) => boolean): string | undefined {
  const id = source.sshKeyResourceId;
  if (id === undefined || id === null) return undefined;
  const label = `source.${kind}.sshKeyResourceId`;
  if (!SSH_KEY_KINDS.includes(kind)) return `${label} is not supported for ${kind} ClickPipes`;
  if (typeof id !== 'string') return `${label} must be a string`;
  if (!exists(id)) return `${label}: SSH key resource ${id} not found`;
  return undefined;
}
