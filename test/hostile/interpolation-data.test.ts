/**
 * Issue 24 item 3: data from the service (or a file, or a variable) is never code. `obsync export`
 * wrote a service-side name `exfil ${env:MYCI_SECRET}` verbatim and the next plan substituted the
 * CI secret. Now `$${` is a literal `${`, export writes every `${` of the service's data so, and a
 * value brought in by a reference is never read for references again — whatever it holds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { collectionOf } from '../../src/kinds/registry.js';
import type { JsonObject } from '../../src/core/wire.js';
import { readLive } from '../../src/engine/live.js';
import { makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { exportLive } from '../../src/export/exporter.js';
import { memoryInventory } from '../../src/inventory/memory-store.js';
import { REGISTRY } from '../../src/kinds/registry.js';
import { interpolateDocument } from '../../src/manifests/interpolate.js';
import { loadManifests } from '../../src/manifests/load.js';
import { parseYamlFile } from '../../src/manifests/parse.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { DEMO_IDS } from '../../src/sandbox/domain/seed.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

const SECRET = 'ci-secret-value-that-must-not-leak-7731';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'obsync-data-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Pieces a hostile name is made of: references, escapes, near-misses, and plain text. */
const piece = fc.constantFrom(
  '${env:MYCI_SECRET}',
  '$${env:MYCI_SECRET}',
  '$$${env:MYCI_SECRET}',
  '${file:secret.txt}',
  '${var:x}',
  '${env:',
  '${',
  '$${',
  '$',
  '$$',
  '{',
  '}',
  'env:MYCI_SECRET}',
  ' ',
  'Checkout',
  'ü',
);
const hostile = fc.array(piece, { minLength: 1, maxLength: 8 }).map((p) => p.join(''));

const dashboard = (name: string) =>
  `apiVersion: obsync/v1\nkind: Dashboard\nmetadata: {name: d}\nspec:\n  name: ${JSON.stringify(name)}\n  tiles: []\n`;

function nameLoaded(template: string, env: Record<string, string>): { name: unknown; errors: string[] } {
  const file = join(dir, 'm.yaml');
  writeFileSync(file, dashboard(template));
  const { resources, diagnostics } = loadManifests([file], { env, files: { roots: [dir] } });
  const spec = resources[0]?.spec as { name?: unknown } | undefined;
  return { name: spec?.name, errors: diagnostics.filter((d) => d.severity === 'error').map((d) => d.message) };
}

/**
 * The meaning of a template, read once from left to right: `$${` is `${`; a reference is replaced by its value, which is not read again.
 */
function meaning(template: string, values: Record<string, string>): string | undefined {
  let out = '';
  for (let i = 0; i < template.length; ) {
    if (template.startsWith('$${', i)) {
      out += '${';
      i += 3;
      continue;
    }
    const ref = /^\$\{(env|file|var):([^}]*)\}/.exec(template.slice(i));
    if (ref) {
      const value = values[`${ref[1]}:${ref[2]}`];
      // A reference without a value is an error: the manifest is not loaded.
      if (value === undefined) return undefined;
      out += value;
      i += ref[0].length;
      continue;
    }
    out += template[i];
    i += 1;
  }
  return out;
}

describe('interpolation reads data once', () => {
  it('a value from a variable or a file that holds references stays as it is (property)', () => {
    fc.assert(
      fc.property(hostile, hostile, (viaEnv, viaFile) => {
        writeFileSync(join(dir, 'secret.txt'), viaFile);
        const env = { MYCI_SECRET: SECRET, INNER: viaEnv };
        const template = 'a ${env:INNER} b ${file:secret.txt} c $${env:MYCI_SECRET}';
        const { name, errors } = nameLoaded(template, env);
        expect(errors).toEqual([]);
        expect(name).toBe(`a ${viaEnv} b ${viaFile} c \${env:MYCI_SECRET}`);
        expect(name).not.toContain(SECRET);
      }),
      { numRuns: 60 },
    );
  });

  it('$${ is a literal ${, however the escapes and references are mixed (property)', () => {
    fc.assert(
      fc.property(hostile, (template) => {
        const { name } = nameLoaded(template, { MYCI_SECRET: SECRET });
        expect(name).toBe(meaning(template, { 'env:MYCI_SECRET': SECRET }));
      }),
      { numRuns: 150 },
    );
  });

  it('obsync.yaml, interpolated in parts, never reads a resolved value again (a var holding ${env:...})', () => {
    const path = join(dir, 'obsync.yaml');
    writeFileSync(join(dir, 'inner.txt'), '${env:MYCI_SECRET}');
    writeFileSync(
      path,
      'apiVersion: obsync/v1\nkind: Config\nstate: {path: "${file:inner.txt}"}\ntargets:\n  - name: prod\n    variant: self-hosted\n    ' +
        'baseUrl: http://127.0.0.1:8000\n    vars: {x: "${file:inner.txt}", y: "$${env:MYCI_SECRET}"}\n',
    );
    const loaded = loadConfig(path, { MYCI_SECRET: SECRET });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.declared[0]?.tree?.vars).toEqual({ x: '${env:MYCI_SECRET}', y: '${env:MYCI_SECRET}' });
    expect(loaded.config?.state).toMatchObject({ path: '${env:MYCI_SECRET}' });
    const file = join(dir, 'm.yaml');
    writeFileSync(file, dashboard('${var:x} ${var:y}'));
    const { resources } = loadManifests([file], {
      env: { MYCI_SECRET: SECRET },
      vars: { target: 'prod', values: loaded.declared[0]?.tree?.vars ?? {} },
    });
    expect((resources[0]?.spec as { name: string }).name).toBe('${env:MYCI_SECRET} ${env:MYCI_SECRET}');
  });
});

const defined = (o: Record<string, unknown>): JsonObject =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as JsonObject;

describe('a document interpolated twice', () => {
  it('is interpolated once: the second pass finds only data', () => {
    const file = join(dir, 'm.yaml');
    const { docs, lineCounter } = parseYamlFile(file, dashboard('${env:INNER} $${env:MYCI_SECRET}'));
    const [doc] = docs;
    if (!doc) throw new Error('no document');
    const ctx = { file, env: { INNER: '${env:MYCI_SECRET}', MYCI_SECRET: SECRET }, allowMissingEnv: false, files: { roots: [dir] } };
    expect(interpolateDocument(doc, lineCounter, ctx)).toEqual([]);
    expect(interpolateDocument(doc, lineCounter, ctx)).toEqual([]);
    expect(doc.getIn(['spec', 'name'])).toBe('${env:MYCI_SECRET} ${env:MYCI_SECRET}');
  });
});

describe('export writes data, never code', () => {
  it('any string the service holds comes back equal through export, load and plan, with no variable substituted (property)', async () => {
    const text = fc.oneof(hostile, fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: hostile, tile: text, markdown: text, where: text, tag: hostile.filter((t) => t.length <= 32) }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.record({ name: hostile.map((h) => `Errors ${h}`), where: text }),
        async (dashboards, search) => {
          const port = inProcessPort(createObservabilityDomain({ seed: 'demo' }), 'self-hosted', 'prop');
          const out = mkdtempSync(join(tmpdir(), 'obsync-export-data-'));
          try {
            for (const d of dashboards)
              await collectionOf(port, 'Dashboard').create(
                defined({
                  name: d.name,
                  tags: [d.tag],
                  tiles: [
                    { name: d.tile, x: 0, y: 0, w: 6, h: 4, config: { displayType: 'markdown', markdown: d.markdown } },
                    {
                      name: d.tile,
                      x: 6,
                      y: 0,
                      w: 6,
                      h: 4,
                      config: { displayType: 'search', sourceId: DEMO_IDS.logs, select: '', where: d.where },
                    },
                  ],
                }),
              );
            await collectionOf(port, 'SavedSearch').create({
              name: search.name,
              sourceId: DEMO_IDS.logs,
              where: search.where,
              select: '',
              filters: [],
            });
            const live = await readLive(
              port,
              REGISTRY.filter((d) => d.kind !== 'Pipe' && port.collection(d.kind) !== null),
            );
            const result = exportLive({ objects: (k) => live.objects(k), owned: [] });
            for (const m of result.manifests) {
              mkdirSync(dirname(join(out, m.file)), { recursive: true });
              writeFileSync(join(out, m.file), m.text);
            }
            writeFileSync(join(out, 'secret.txt'), SECRET);
            const env = { ...Object.fromEntries(result.variables.map((v) => [v.name, v.value])), MYCI_SECRET: SECRET };
            const { resources, diagnostics } = loadManifests([out], { env });
            expect(diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.message} ${d.path ?? ''} ${d.file ?? ''}`)).toEqual(
              [],
            );
            expect(JSON.stringify(resources)).not.toContain(SECRET);
            const inventory = memoryInventory(
              'prop',
              result.manifests.map((m) => ({
                kind: m.kind,
                name: m.name,
                id: m.id,
                status: 'owned' as const,
                naturalKey: m.naturalKey,
                updatedAt: '2026-01-01T00:00:00Z',
              })),
            );
            const { plan } = await makePlan({ port, inventory, desired: resources, selection: SELECT_ALL, prune: false, maxDeletes: 10 });
            expect(plan.diagnostics).toEqual([]);
            expect(plan.steps.filter((s) => s.action !== 'noop').map((s) => ({ address: s.address, changes: s.changes }))).toEqual([]);
          } finally {
            rmSync(out, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
