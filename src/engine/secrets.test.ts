import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../core/resource.js';
import { stableJson } from '../planner/diff.js';
import { extractSecrets } from './secrets.js';

const fingerprint = (v: string) => `fp(${v.length})-${[...v].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 1_000_003, 7)}`;

function pipe(password: string): DesiredResource {
  return {
    kind: 'Pipe',
    name: 'orders',
    address: 'Pipe/orders',
    labels: {},
    spec: { name: 'orders-kafka', source: { kafka: { credentials: { username: 'u', password } } } },
    source: { file: 'p.yaml', line: 1, col: 1 },
  };
}

describe('extractSecrets', () => {
  const paths = new Map([['Pipe' as const, [['source', 'kafka', 'credentials']]]]);

  it('fingerprints sensitive values and keeps them apart from the spec hash', () => {
    const out = extractSecrets([pipe('s3cret')], paths, { fingerprint });
    const fps = out.fingerprints.get('Pipe/orders');
    expect(Object.keys(fps ?? {})).toEqual(['source.kafka.credentials']);
    const fp = fps?.['source.kafka.credentials'] ?? '';
    expect(out.values.get('Pipe/orders')?.get(fp)).toEqual({ username: 'u', password: 's3cret' });
  });

  it('changes the spec hash when a secret rotates, and only then', () => {
    const a = extractSecrets([pipe('one')], paths, { fingerprint }).specHashes.get('Pipe/orders');
    const b = extractSecrets([pipe('one')], paths, { fingerprint }).specHashes.get('Pipe/orders');
    const c = extractSecrets([pipe('two')], paths, { fingerprint }).specHashes.get('Pipe/orders');
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it("hashes each spec with its labels, its secrets as their fingerprints, and never a secret's value", () => {
    const plain = { ...pipe('x'), address: 'Pipe/plain' as const, name: 'plain', labels: { team: 'a' }, spec: { name: 'plain' } };
    const out = extractSecrets([pipe('s3cret'), plain], paths, { fingerprint });
    const fp = out.fingerprints.get('Pipe/orders')?.['source.kafka.credentials'] ?? '';
    const masked = { name: 'orders-kafka', source: { kafka: { credentials: { $sensitive: fp } } } };
    expect(out.specHashes.get('Pipe/orders')).toBe(fingerprint(stableJson({ labels: {}, spec: masked })));
    expect(out.specHashes.get('Pipe/plain')).toBe(fingerprint(stableJson({ labels: { team: 'a' }, spec: { name: 'plain' } })));
    expect(out.specHashes.get('Pipe/absent')).toBeUndefined();
    expect(out.fingerprints.has('Pipe/plain')).toBe(false);
  });

  it('ignores paths the spec does not declare', () => {
    const res = { ...pipe('x'), spec: { name: 'orders-kafka' } };
    expect(extractSecrets([res], paths, { fingerprint }).fingerprints.size).toBe(0);
  });
});
