/**
 * The hosted service object (`GET /v1/organizations/{org}/services/{id}`, also answered by `PATCH
 * …/state`) against the vendor's OpenAPI document, in every state the sandbox moves it through:
 * the spec's `Service` schema (it requires `autoscalingMode` and `currentScaling`), and what the
 * Terraform provider's `api.Service` decodes (c320db99 internal/api/models.go: the scaling fields
 * are Go `*int`, so whole numbers; `deriveAutoscalingMode` takes the explicit mode, else infers it
 * from minReplicas/maxReplicas). The documents come from OBSYNC_SPECS_DIR, as in the contract test.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { missingTools } from '../../support/tools.js';
import { cloud, sandbox, waitFor } from './support.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const specsDir = [process.env.OBSYNC_SPECS_DIR, resolve(import.meta.dirname, '../../../../shared/specs'), '/work/shared/specs'].find(
  (d): d is string => typeof d === 'string' && d !== '' && existsSync(join(d, 'clickhouse-cloud-openapi.json')),
);
/** Skipped off CI without the vendor's document; in CI (`.ci/run` sets OBSYNC_SPECS_DIR) its absence fails the file. */
const missing = missingTools({
  name: 'clickhouse-cloud-openapi.json',
  install: "OBSYNC_SPECS_DIR naming the folder of the vendors' OpenAPI documents (../shared/specs beside the repository)",
  present: () => specsDir !== undefined,
});

/** The spec's `Service` schema as a validator (OpenAPI 3.1 schemas are JSON Schema 2020-12; its `example`s are annotations). */
function serviceValidator() {
  const spec = JSON.parse(readFileSync(join(specsDir ?? '', 'clickhouse-cloud-openapi.json'), 'utf8')) as { components: object };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'spec', components: spec.components });
  return ajv.compile({ $ref: 'spec#/components/schemas/Service' });
}

describe.skipIf(missing !== null)('the hosted service object against the vendor spec', () => {
  it('is a Service of the vendor spec while running, idle, waking, stopping and stopped', async () => {
    const validate = serviceValidator();
    const h = await sandbox();
    const api = cloud(h);
    const check = (svc: unknown, when: string) => {
      const ok = validate(svc);
      expect(validate.errors ?? [], when).toEqual([]);
      expect(ok, when).toBe(true);
      return svc as Record<string, unknown>;
    };
    const running = check(await api.result('GET', api.service), 'running');
    expect(running.state).toBe('running');
    h.service.idle();
    expect(check(await api.result('GET', api.service), 'idle').state).toBe('idle');
    expect(check(await api.result('PATCH', `${api.service}/state`, { command: 'awake' }), 'awaking').state).toBe('awaking');
    await waitFor(
      'running',
      async () => check(await api.result('GET', api.service), 'after awaking').state,
      (s) => s === 'running',
    );
    expect(check(await api.result('PATCH', `${api.service}/state`, { command: 'stop' }), 'stopping').state).toBe('stopping');
    await waitFor(
      'stopped',
      async () => check(await api.result('GET', api.service), 'after stopping').state,
      (s) => s === 'stopped',
    );
  });
});

describe('the hosted service scaling', () => {
  it("carries the scaling the spec requires, consistent with itself, as the provider's models read it", async () => {
    const api = cloud(await sandbox());
    const svc = (await api.result('GET', api.service)) as Record<string, unknown>;
    const current = svc.currentScaling as Record<string, unknown>;
    expect(svc.autoscalingMode).toBe('vertical');
    // Vertical: a fixed replica count, memory per replica in a range; the horizontal fields absent.
    expect(current).toEqual({
      effectiveAutoscalingMode: svc.autoscalingMode,
      effectiveMinReplicaMemoryGb: svc.minReplicaMemoryGb,
      effectiveMaxReplicaMemoryGb: svc.maxReplicaMemoryGb,
      effectiveMinReplicas: svc.numReplicas,
      effectiveMaxReplicas: svc.numReplicas,
      effectiveIdleScaling: svc.idleScaling,
      effectiveIdleTimeoutMinutes: svc.idleTimeoutMinutes,
    });
    for (const absent of ['minReplicas', 'maxReplicas', 'replicaMemoryGb']) expect(svc, absent).not.toHaveProperty(absent);
    // models.go: *int fields (a fraction would not decode), a string mode the provider takes as is.
    for (const field of [
      'minReplicaMemoryGb',
      'maxReplicaMemoryGb',
      'numReplicas',
      'idleTimeoutMinutes',
      'minTotalMemoryGb',
      'maxTotalMemoryGb',
    ])
      expect(Number.isInteger(svc[field]), field).toBe(true);
    expect(svc.minReplicaMemoryGb as number).toBeLessThanOrEqual(svc.maxReplicaMemoryGb as number);
    expect(svc.minTotalMemoryGb).toBe((svc.minReplicaMemoryGb as number) * 3);
  });
});
