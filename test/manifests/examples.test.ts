/** The shipped examples validate with zero diagnostics, and the committed JSON Schema is current. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { documentJsonSchema } from '../../src/config/json-schema.js';
import { loadManifests } from '../../src/manifests/load.js';
import { discoverFiles } from '../../src/manifests/discover.js';
import { folderOf, KINDS } from '../../src/kinds/registry.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../config-examples');

describe('config-examples', () => {
  it('obsync.yaml is valid and points at kinds/ and team/, with no target (embedded sandbox)', () => {
    const { config, diagnostics } = loadConfig(join(root, 'obsync.yaml'), {});
    expect(diagnostics).toEqual([]);
    expect(config?.manifests).toEqual(['kinds', 'team']);
    expect(config?.targets).toBeUndefined();
  });

  it('every example validates with zero diagnostics', () => {
    const { resources, diagnostics } = loadManifests([join(root, 'kinds'), join(root, 'team')], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => r.address).sort()).toEqual([
      'Alert/checkout-error-logs',
      'Alert/checkout-error-rate-band',
      'Alert/checkout-p99-high',
      'Alert/example-checkout-errors',
      'Alert/example-error-logs',
      'Alert/example-p95-high',
      'Dashboard/checkout',
      'Dashboard/example-service',
      'Pipe/clicks-kinesis',
      'Pipe/orders-kafka',
      'SavedSearch/example-checkout-errors',
      'Source/example-logs',
      'Webhook/example-oncall',
      'Webhook/example-slack',
    ]);
    const checkout = resources.find((r) => r.address === 'Dashboard/checkout')?.spec as {
      tiles: { config: { displayType: string; source?: unknown } }[];
    };
    expect(new Set(checkout.tiles.map((t) => t.config.displayType))).toEqual(new Set(['line', 'number', 'stacked_bar', 'table', 'search']));
    expect(new Set(checkout.tiles.map((t) => t.config.source))).toEqual(new Set(['Traces', 'Logs', 'Metrics']));
  });

  it('has one example of every kind; the self-hosted-only ones (and the access kinds) apart from the default paths', () => {
    const { resources, diagnostics } = loadManifests([join(root, 'self-hosted')], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => r.address).sort()).toEqual(['Connection/example-clickhouse', 'Source/example-traces-sh']);
    const access = loadManifests([join(root, 'access')], { env: {} });
    expect(access.diagnostics).toEqual([]);
    expect(access.resources.map((r) => r.address).sort()).toEqual(['Role/dashboard-editors', 'TeamMember/ann', 'TeamSettings/team']);
    const hosted = loadManifests([join(root, 'hosted')], { env: {} });
    expect(hosted.diagnostics).toEqual([]);
    expect(hosted.resources.map((r) => r.address)).toEqual(['PipeSshKey/production-bastion']);
    const all = loadManifests([root], { env: {} }).resources;
    expect(new Set(all.map((r) => r.kind))).toEqual(new Set(KINDS));
    const selfHostedFile = (kind: string) =>
      kind === 'Connection'
        ? 'self-hosted/connection.yaml'
        : ['Role', 'TeamMember', 'TeamSettings'].includes(kind)
          ? 'access/access.yaml'
          : kind === 'PipeSshKey'
            ? 'hosted/pipe-ssh-key.yaml'
            : null;
    for (const kind of KINDS)
      expect(readFileSync(join(root, selfHostedFile(kind) ?? `kinds/${folderOf(kind)}.yaml`), 'utf8')).toContain(`kind: ${kind}`);
  });

  it('every example names the JSON Schema for editors on its first line', () => {
    const { files } = discoverFiles([root]);
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) {
      const first = readFileSync(file, 'utf8').split('\n')[0] ?? '';
      const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
      expect(m, file).not.toBeNull();
      expect(join(dirname(file), m?.[1] ?? ''), file).toBe(join(root, 'obsync.schema.json'));
    }
  });

  it('the committed obsync.schema.json is what `obsync schema` prints', () => {
    const committed: unknown = JSON.parse(readFileSync(join(root, 'obsync.schema.json'), 'utf8'));
    expect(committed).toEqual(documentJsonSchema());
  });
});
