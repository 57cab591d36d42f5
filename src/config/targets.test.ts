import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { chooseTargets, resolveTarget, resolveTargets } from './targets.js';
import type { ObsyncConfig } from './schema.js';
import type { TargetConfig } from './target-schema.js';

const staging: TargetConfig = {
  name: 'staging',
  variant: 'self-hosted',
  baseUrl: 'http://127.0.0.1:8001',
  credentials: { apiKey: 'k-staging' },
};
const qa: TargetConfig = { name: 'qa', variant: 'self-hosted', baseUrl: 'http://127.0.0.1:8002', credentials: { apiKey: 'k-qa' } };
const production: TargetConfig = {
  name: 'production',
  variant: 'hosted',
  baseUrl: 'http://127.0.0.1:8003',
  organizationId: '00000000-0000-4000-8000-000000000001',
  serviceId: '00000000-0000-4000-8000-000000000002',
  credentials: { keyId: 'id', keySecret: 'secret-prod' },
};
const config = (...targets: TargetConfig[]): ObsyncConfig => ({ apiVersion: 'obsync/v1', kind: 'Config', targets });
const noFile = () => {
  throw new Error('no file');
};

describe('chooseTargets', () => {
  const declared = ['staging', 'production'];

  it('takes every --target, else OBSYNC_TARGET, else defaults.target, else every declared target', () => {
    expect(chooseTargets(declared, ['production', 'staging', 'production'], { OBSYNC_TARGET: 'staging' }, 'staging')).toEqual([
      'production',
      'staging',
    ]);
    expect(chooseTargets(declared, [], { OBSYNC_TARGET: 'staging' }, 'production')).toEqual(['staging']);
    expect(chooseTargets(declared, [], {}, 'production')).toEqual(['production']);
    expect(chooseTargets(declared, [], {}, undefined)).toEqual(['staging', 'production']);
    expect(chooseTargets([], [], {}, undefined)).toEqual([]);
    expect(chooseTargets([], ['sandbox'], {}, undefined)).toEqual(['sandbox']);
  });

  it('refuses a name that is not declared, listing the declared ones', () => {
    expect(() => chooseTargets(declared, ['staging', 'prod'], {}, undefined)).toThrow(ConfigError);
    try {
      chooseTargets(declared, ['prod'], {}, undefined);
    } catch (e) {
      expect(e).toMatchObject({ message: "unknown target 'prod'", hint: 'obsync.yaml declares: staging, production' });
    }
  });
});

describe('resolveTargets', () => {
  it('resolves each chosen target with its own settings', () => {
    const out = resolveTargets({ config: config(staging, production), chosen: ['staging', 'production'], env: {}, readFile: noFile });
    expect(out.map((r) => (r.kind === 'remote' ? `${r.target.name} ${r.target.variant} ${r.target.baseUrl}` : r.kind))).toEqual([
      'staging self-hosted http://127.0.0.1:8001',
      'production hosted http://127.0.0.1:8003',
    ]);
  });

  it('refuses an environment override that would point several targets at one place', () => {
    const both = { config: config(staging, production), chosen: ['staging', 'production'], readFile: noFile };
    expect(() => resolveTargets({ ...both, env: { OBSYNC_BASE_URL: 'http://127.0.0.1:9000' } })).toThrow(
      /OBSYNC_BASE_URL \(or OBSYNC_BASE_URL_FILE\) would override the setting of several targets at once \('staging', 'production'\)/,
    );
    // One target chosen: the override is the documented precedence.
    const one = resolveTargets({ ...both, chosen: ['staging'], env: { OBSYNC_BASE_URL: 'http://127.0.0.1:9000' } });
    expect(one[0]?.kind === 'remote' && one[0].target.baseUrl).toBe('http://127.0.0.1:9000');
    // An override that applies to one target of its variant is no conflict.
    expect(() => resolveTargets({ ...both, env: { OBSYNC_API_KEY: 'k-other' } })).not.toThrow();
    const twoSelfHosted = { config: config(staging, qa), chosen: ['staging', 'qa'], readFile: noFile };
    expect(() => resolveTargets({ ...twoSelfHosted, env: { OBSYNC_API_KEY: 'k-other' } })).toThrow(/OBSYNC_API_KEY .* \('staging', 'qa'\)/);
    // A config that names the same variable for every target gives them the same value: nothing is overridden.
    const shared = config({ ...staging, credentials: { apiKey: 'k-same' } }, { ...qa, credentials: { apiKey: 'k-same' } });
    expect(() => resolveTargets({ ...twoSelfHosted, config: shared, env: { OBSYNC_API_KEY: 'k-same' } })).not.toThrow();
  });

  it('gives each embedded sandbox its own data (under the state directory) unless two name the same data:', () => {
    const a: TargetConfig = { name: 'a', variant: 'sandbox' };
    const b: TargetConfig = { name: 'b', variant: 'sandbox', api: 'self-hosted' };
    const defaults = resolveTargets({ config: config(a, b), chosen: ['a', 'b'], env: {}, readFile: noFile });
    expect(defaults.map((r) => r.kind === 'embedded' && `${r.embedded.name} ${r.embedded.api} ${r.embedded.dataDir}`)).toEqual([
      'a hosted undefined',
      'b self-hosted undefined',
    ]);
    const same = config({ ...a, data: 'sb' }, { ...b, data: 'sb' });
    expect(() => resolveTargets({ config: same, chosen: ['a', 'b'], env: {}, readFile: noFile })).toThrow(
      "targets 'a' and 'b' are embedded sandboxes with the same data directory sb",
    );
    const apart = resolveTargets({ config: config(a, { ...b, data: '.obsync/sandbox-b' }), chosen: ['a', 'b'], env: {}, readFile: noFile });
    expect(apart.map((r) => r.kind === 'embedded' && `${r.embedded.name} ${r.embedded.dataDir}`)).toEqual([
      'a undefined',
      'b .obsync/sandbox-b',
    ]);
  });
});

describe('never a silent simulator', () => {
  const none = { config: undefined, chosen: [], readFile: noFile };

  it('falls back to the embedded sandbox only when no credential variable is set', () => {
    expect(resolveTargets({ ...none, env: {} })).toMatchObject([{ kind: 'embedded', embedded: { name: 'sandbox' } }]);
    expect(resolveTargets({ ...none, env: { OBSYNC_STATUS_TOKEN: 'not-a-service-credential' } })).toMatchObject([{ kind: 'embedded' }]);
    for (const name of [
      'OBSYNC_API_KEY',
      'OBSYNC_KEY_ID',
      'OBSYNC_KEY_SECRET',
      'OBSYNC_STATE_URL',
      'OBSYNC_API_KEY_FILE',
      'OBSYNC_KEY_SECRET_FILE',
    ]) {
      expect(() => resolveTargets({ ...none, env: { [name]: 'x' }, configName: '/p/obsync.yaml' }), name).toThrow(
        new RegExp(`${name} is set, but no target is configured: obsync does not fall back to the embedded sandbox`),
      );
      try {
        resolveTargets({ ...none, env: { [name]: 'x' }, configName: '/p/obsync.yaml' });
      } catch (err) {
        expect((err as ConfigError).hint).toMatch(/set OBSYNC_BASE_URL .* or declare the target in \/p\/obsync.yaml/);
      }
    }
  });

  it('obsync run: no undeclared sandbox at all, naming OBSYNC_BASE_URL and obsync.yaml; a declared variant: sandbox is fine', () => {
    const refused = /obsync run has no target/;
    expect(() => resolveTargets({ ...none, env: {}, implicitSandbox: false })).toThrow(refused);
    try {
      resolveTargets({ ...none, env: {}, implicitSandbox: false, configName: 'obsync.yaml (none found in /w)' });
    } catch (err) {
      expect((err as ConfigError).hint).toMatch(
        /set OBSYNC_BASE_URL .*declare targets in obsync.yaml \(none found in \/w\).*variant: sandbox/,
      );
    }
    expect(() => resolveTargets({ ...none, chosen: ['sandbox'], env: {}, implicitSandbox: false })).toThrow(refused);
    const declared = config({ name: 'sb', variant: 'sandbox' });
    expect(resolveTargets({ config: declared, chosen: ['sb'], env: {}, readFile: noFile, implicitSandbox: false })).toMatchObject([
      { kind: 'embedded', embedded: { name: 'sb' } },
    ]);
    // The environment's own target is not a sandbox.
    expect(
      resolveTargets({ ...none, env: { OBSYNC_BASE_URL: 'http://127.0.0.1:9', OBSYNC_API_KEY: 'k-1234' }, implicitSandbox: false }),
    ).toMatchObject([{ kind: 'remote', target: { name: 'default' } }]);
  });
});

describe('resolveTarget (one target: keys, query)', () => {
  it('needs one target to be chosen when several are declared', () => {
    expect(() => resolveTarget({ config: config(staging, production), name: undefined, env: {}, readFile: noFile })).toThrow(
      /declares 2 targets \(staging, production\); choose one with --target/,
    );
    expect(resolveTarget({ config: config(staging, production), name: 'production', env: {}, readFile: noFile })).toMatchObject({
      kind: 'remote',
      target: { name: 'production' },
    });
  });
});
