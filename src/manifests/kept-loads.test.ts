/**
 * The loads a daemon keeps between runs (LoadedFiles) are an optimisation only: whatever the
 * files and the environment become, run after run, a load with them says exactly what a fresh
 * load says — the same resources, the same diagnostics (credential refusals included, trust
 * invariant 5), at the same positions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadManifests } from './load.js';
import { LoadedFiles } from './loaded-files.js';

/** Strings that are, or contain, or are close to each other (a value long enough to be looked for, a word of one). */
const WORDS = [
  'Checkout',
  'hooks.example.com/T0/abcdefgh1234',
  'https://hooks.example.com/T0/abcdefgh1234',
  'abcdefgh1234',
  'p4ss-w0rd-9931',
];
const word = fc.constantFrom(...WORDS);

const dashboard = (name: string, words: string[]) => `apiVersion: obsync/v1
kind: Dashboard
metadata: {name: ${name}}
spec:
  name: ${JSON.stringify(`${name} ${words[0] ?? ''}`)}
  tiles:
    - {key: notes, name: Notes, x: 0, y: 0, w: 6, h: 2, config: {displayType: markdown, markdown: ${JSON.stringify(words.join(' '))}}}
`;

const webhook = (url: string) => `apiVersion: obsync/v1
kind: Webhook
metadata: {name: ops}
spec:
  service: generic
  name: ops
  url: ${JSON.stringify(url.startsWith('https://') ? url : `https://${url}`)}
`;

/** Cross-document findings come and go with the other files: an unknown dashboard or tile. */
const alert = (dashboard: string, tile: string) => `apiVersion: obsync/v1
kind: Alert
metadata: {name: watch}
spec:
  dashboard: ${dashboard}
  tile: ${tile}
  interval: 5m
  threshold: 1
  thresholdType: above
  channel: {type: webhook, webhook: ops}
  name: Watch
`;

type Step =
  | { file: 'a.yaml' | 'b.yaml'; words: string[] }
  | { file: 'c.yaml'; dashboard: 'a' | 'b' | 'x'; tile: 'notes' | 'nope' }
  | { file: 'd.yaml'; duplicate: boolean }
  | { file: 'w.yaml'; url: string }
  | { file: 'i.yaml'; interpolated: boolean }
  | { env: 'OBSYNC_API_KEY' | 'NOTE'; value: string | undefined }
  | { remove: 'a.yaml' | 'w.yaml' | 'c.yaml' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ file: fc.constantFrom('a.yaml' as const, 'b.yaml' as const), words: fc.array(word, { maxLength: 3 }) }),
  fc.record({ file: fc.constant('w.yaml' as const), url: word }),
  fc.record({
    file: fc.constant('c.yaml' as const),
    dashboard: fc.constantFrom('a' as const, 'b' as const, 'x' as const),
    tile: fc.constantFrom('notes' as const, 'nope' as const),
  }),
  fc.record({ file: fc.constant('d.yaml' as const), duplicate: fc.boolean() }),
  fc.record({ file: fc.constant('i.yaml' as const), interpolated: fc.boolean() }),
  fc.record({ env: fc.constantFrom('OBSYNC_API_KEY' as const, 'NOTE' as const), value: fc.option(word, { nil: undefined }) }),
  fc.record({ remove: fc.constantFrom('a.yaml' as const, 'w.yaml' as const, 'c.yaml' as const) }),
);

function apply(dir: string, s: Step, env: Record<string, string>): void {
  if ('remove' in s) rmSync(join(dir, s.remove), { force: true });
  else if ('env' in s) {
    if (s.value === undefined) delete env[s.env];
    else env[s.env] = s.value;
  } else if (s.file === 'w.yaml') writeFileSync(join(dir, s.file), webhook(s.url));
  else if (s.file === 'c.yaml') writeFileSync(join(dir, s.file), alert(s.dashboard, s.tile));
  else if (s.file === 'd.yaml') writeFileSync(join(dir, s.file), dashboard(s.duplicate ? 'a' : 'd', ['Checkout']));
  else if (s.file === 'i.yaml')
    // A file that interpolates: never kept, yet its values take part in the others' checks.
    writeFileSync(join(dir, s.file), dashboard('interp', [s.interpolated ? '${env:NOTE}' : 'plain']));
  else writeFileSync(join(dir, s.file), dashboard(s.file.slice(0, 1), s.words));
}

const said = (r: ReturnType<typeof loadManifests>) => ({
  resources: r.resources.map((x) => [x.address, x.digest]),
  diagnostics: r.diagnostics.map((d) => JSON.stringify(d)),
});

describe('loads kept between runs', () => {
  it('say what a fresh load says, whatever the files and the environment become', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'obsync-kept-'));
        try {
          const kept = new LoadedFiles();
          const env: Record<string, string> = { NOTE: 'abcdefgh1234' };
          writeFileSync(join(dir, 'a.yaml'), dashboard('a', ['Checkout']));
          for (const s of steps) {
            apply(dir, s, env);
            // Two targets sharing the kept files, the second with a credential of its own.
            for (const own of [{}, { OBSYNC_API_KEY: 'p4ss-w0rd-9931' }]) {
              const opts = { env: { ...env, ...own }, files: { roots: [dir] }, allowMissingEnv: true };
              expect(said(loadManifests([dir], { ...opts, loaded: kept }))).toEqual(said(loadManifests([dir], opts)));
            }
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it(
    'checks a kept file again only against sensitive values it was not checked against: targets with secrets of their own share ' + 'it',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'obsync-kept-'));
      try {
        writeFileSync(join(dir, 'a.yaml'), dashboard('a', ['Checkout']));
        for (const env of ['staging', 'production']) {
          mkdirSync(join(dir, env));
          writeFileSync(join(dir, env, 'w.yaml'), webhook(`https://hooks.example.com/T0/${env}-000000`));
        }
        const kept = new LoadedFiles();
        const run = (env: string) =>
          loadManifests([join(dir, 'a.yaml'), join(dir, env)], { env: {}, loaded: kept }).resources.find((r) => r.kind === 'Dashboard');
        const first = run('staging');
        expect(run('production')).toBe(first);
        expect(kept.rechecks).toBe(1);
        // Run after run, each target finds its check kept.
        for (let i = 0; i < 3; i++) {
          expect(run('staging')).toBe(first);
          expect(run('production')).toBe(first);
        }
        expect(kept.rechecks).toBe(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('cross-document checks of kept files', () => {
  it('are made again only when a document changed, and say what they said', () => {
    const dir = mkdtempSync(join(tmpdir(), 'obsync-kept-'));
    try {
      writeFileSync(join(dir, 'a.yaml'), dashboard('a', ['Checkout']));
      writeFileSync(join(dir, 'c.yaml'), alert('a', 'nope'));
      const kept = new LoadedFiles();
      const load = () => said(loadManifests([dir], { env: {}, loaded: kept }));
      const first = load();
      expect(first.diagnostics.join('\n')).toMatch(/unknown-tile/);
      expect(load()).toEqual(first);
      expect(load()).toEqual(first);
      expect(kept.crossChecksMade).toBe(1);
      writeFileSync(join(dir, 'c.yaml'), alert('a', 'notes'));
      expect(load().diagnostics.join('\n')).not.toMatch(/unknown-tile/);
      expect(kept.crossChecksMade).toBe(2);
      // A file that interpolates is loaded afresh each time: its documents are new, the checks too.
      writeFileSync(join(dir, 'i.yaml'), dashboard('interp', ['${env:NOTE}']));
      const opts = { env: { NOTE: 'n' }, loaded: kept };
      loadManifests([dir], opts);
      loadManifests([dir], opts);
      expect(kept.crossChecksMade).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
