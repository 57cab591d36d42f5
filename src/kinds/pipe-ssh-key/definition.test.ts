import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../core/resource.js';
import { diffCanonical } from '../../planner/diff.js';
import type { ExportContext, LiveView } from '../kind.js';
import type { RefContext } from '../refs.js';
import { pipeSshKey } from './definition.js';
import { pipeSshKeyLive, type PipeSshKeyLive } from './model.js';
import { pipeSshKeySpecSchema } from './schema.js';

const noRefs = {} as RefContext;
const view = (expected: unknown): LiveView => ({
  tokens: { token: () => '', partToken: () => '' },
  parts: undefined,
  expected: expected as LiveView['expected'],
  secrets: {},
  fingerprint: () => 'unused',
});

function res(spec: unknown): DesiredResource<ReturnType<typeof pipeSshKeySpecSchema.parse>> {
  return {
    kind: 'PipeSshKey',
    name: 'bastion',
    address: 'PipeSshKey/bastion',
    labels: {},
    spec: pipeSshKeySpecSchema.parse(spec),
    source: { file: 'k.yaml', line: 1, col: 1 },
  };
}

const SPEC = { name: 'production-bastion', host: 'bastion.example.com', username: 'clickpipes' };
const live: PipeSshKeyLive = pipeSshKeyLive.parse({
  id: '3f1c2a9e-5b7d-4e8f-9a6b-1c2d3e4f5a6b',
  ...SPEC,
  description: '',
  port: 22,
  publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample clickpipes-production-bastion',
  status: 'failed',
  statusMessage: 'could not connect to bastion.example.com:22',
  lastValidatedAt: null,
});

function desiredValue(spec: unknown) {
  const out = pipeSshKey.canonicalDesired(res(spec), noRefs, {});
  if (!out.ok) throw new Error(out.errors.join());
  return out.value;
}

describe('PipeSshKey', () => {
  it("never holds a private key: the live form drops whatever the service sends beyond the record's fields", () => {
    const parsed = pipeSshKeyLive.parse({ ...live, privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----', secret: 'x' });
    expect(parsed).not.toHaveProperty('privateKey');
    expect(JSON.stringify(parsed)).not.toContain('PRIVATE');
    // Nor can a manifest carry one.
    expect(pipeSshKeySpecSchema.safeParse({ ...SPEC, privateKey: 'k' }).success).toBe(false);
  });

  it("compares with the service's defaults (no description, port 22) and creates with them", () => {
    const want = desiredValue(SPEC);
    expect(diffCanonical(pipeSshKey.canonicalLive(live, view(want)), want)).toEqual([]);
    expect(pipeSshKey.createPayload?.(res(SPEC), noRefs, {})).toEqual({ ...SPEC, port: 22 });
    const moved = desiredValue({ ...SPEC, port: 2222 });
    expect(diffCanonical(pipeSshKey.canonicalLive(live, view(moved)), moved).map((c) => c.path)).toEqual(['port']);
  });

  it('sends nothing on a change (the API has no update) and says why, with the status the service reports', () => {
    expect(
      pipeSshKey.update(res({ ...SPEC, port: 2222 }), live, { refs: noRefs, fingerprints: {}, changedPaths: ['port'], parts: undefined }),
    ).toEqual({
      calls: [],
      settle: false,
    });
    const notes = pipeSshKey.notes?.(res({ ...SPEC, port: 2222 }), live) ?? [];
    expect(notes.join('\n')).toMatch(/cannot change in place/);
    expect(notes.join('\n')).toMatch(/status: failed \(could not connect to bastion\.example\.com:22\), not validated yet/);
  });

  it('exports the chosen fields only, the status and public key as notes; the export plans to no change', () => {
    const notes: string[] = [];
    const ctx = { note: (t: string) => notes.push(t) } as unknown as ExportContext;
    const spec = pipeSshKey.toManifest(live, ctx);
    expect(spec).toEqual(SPEC);
    expect(notes).toEqual([
      expect.stringMatching(/^status: failed/),
      `public key to add to the bastion's authorized_keys: ${live.publicKey ?? ''}`,
    ]);
    const want = desiredValue(spec);
    expect(diffCanonical(pipeSshKey.canonicalLive(live, view(want)), want)).toEqual([]);
  });
});
