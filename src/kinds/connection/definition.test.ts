import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../core/resource.js';
import { diffCanonical } from '../../planner/diff.js';
import type { LiveView, UpdateContext } from '../kind.js';
import type { RefContext } from '../refs.js';
import { connection } from './definition.js';
import type { ConnectionLive } from './model.js';
import { connectionSpecSchema } from './schema.js';
import { sensitivePaths } from '../sensitive.js';

const noRefs = {} as RefContext;
const view = (expected: ReturnType<typeof desired>['value'], secrets: Record<string, string> = {}): LiveView => ({
  tokens: { token: () => '', partToken: () => '' },
  parts: undefined,
  expected,
  secrets,
  fingerprint: () => 'unused',
});

function res(spec: unknown): DesiredResource<ReturnType<typeof connectionSpecSchema.parse>> {
  return {
    kind: 'Connection',
    name: 'ch',
    address: 'Connection/ch',
    labels: {},
    spec: connectionSpecSchema.parse(spec),
    source: { file: 'c.yaml', line: 1, col: 1 },
  };
}

function desired(spec: unknown, fps: Record<string, string> = {}) {
  const out = connection.canonicalDesired(res(spec), noRefs, fps);
  if (!out.ok) throw new Error(out.errors.join());
  return out;
}

const live: ConnectionLive = { id: 'c1', name: 'Main', host: 'http://ch:8123', username: 'reader' };
const ctx = (changedPaths: string[], fps: Record<string, string>): UpdateContext => ({
  refs: noRefs,
  fingerprints: fps,
  changedPaths,
  parts: undefined,
});

describe('connection', () => {
  it('marks the password sensitive', () => {
    expect(sensitivePaths(connectionSpecSchema).map((p) => p.join('.'))).toEqual(['password']);
  });

  it('compares the write-only password by what was last sent, and only when the manifest has one', () => {
    const fps = { password: 'fp-1' };
    const want = desired({ name: 'Main', host: 'http://ch:8123', username: 'reader', password: 's3cret' }, fps);
    expect(JSON.stringify(want.value)).not.toContain('s3cret');
    expect(diffCanonical(connection.canonicalLive(live, view(want.value, fps)), want.value)).toEqual([]);
    // Never sent (adopted), or rotated in the manifest: a masked change.
    expect(diffCanonical(connection.canonicalLive(live, view(want.value, {})), want.value)).toEqual([
      { path: 'password', sensitive: true, after: '(sensitive)' },
    ]);
    // No password in the manifest: the one on the service is not obsync's to compare.
    const without = desired({ name: 'Main', host: 'http://ch:8123', username: 'reader' });
    expect(diffCanonical(connection.canonicalLive(live, view(without.value, fps)), without.value)).toEqual([]);
  });

  it('treats an absent prefix and Prometheus flag as the service does, and sends both on update', () => {
    const want = desired({ name: 'Main', host: 'http://ch:8123', username: 'reader' });
    expect(diffCanonical(connection.canonicalLive({ ...live, isPrometheusEndpoint: false }, view(want.value)), want.value)).toEqual([]);
    expect(
      diffCanonical(connection.canonicalLive({ ...live, hyperdxSettingPrefix: 'hdx' }, view(want.value)), want.value).map((c) => c.path),
    ).toEqual(['hyperdxSettingPrefix']);
    expect(
      connection.update(res({ name: 'Main', host: 'http://ch:8123', username: 'reader' }), live, ctx(['hyperdxSettingPrefix'], {})),
    ).toEqual({
      payload: { name: 'Main', host: 'http://ch:8123', username: 'reader', hyperdxSettingPrefix: null, isPrometheusEndpoint: false },
    });
  });

  it('sends the password only when it changed', () => {
    const spec = { name: 'Main', host: 'http://ch:8123', username: 'reader', password: 's3cret' };
    const fps = { password: 'fp-1' };
    expect(connection.update(res(spec), live, ctx(['host'], fps))).not.toHaveProperty('payload.password');
    expect(connection.update(res(spec), live, ctx(['password'], fps))).toHaveProperty('payload.password', { $sensitive: 'fp-1' });
    expect(connection.createPayload?.(res(spec), noRefs, fps)).toEqual({
      name: 'Main',
      host: 'http://ch:8123',
      username: 'reader',
      password: { $sensitive: 'fp-1' },
    });
  });
});
