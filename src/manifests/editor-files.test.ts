/**
 * Issue 53, item 7: an emacs lock beside a manifest (`.#d.yaml`, a link that never resolves)
 * blocked every apply while someone edited. The files editors keep beside a manifest are skipped
 * by name; any other broken link still blocks (discovery fails closed).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverFiles } from './discover.js';
import { isEditorScratch } from './editor-files.js';

let root: string;
let round = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'obsync-editors-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What editors leave beside `name` while it is edited. */
const EDITOR_FORMS: readonly ((name: string) => string)[] = [
  (n) => `.#${n}`,
  (n) => `#${n}#`,
  (n) => `${n}~`,
  (n) => `.${n}.swp`,
  (n) => `.${n}.swo`,
  (n) => `.${n}.swx`,
  (n) => `${n}___jb_tmp___`,
  (n) => `${n}___jb_old___`,
  (n) => `.${n}.kate-swp`,
  () => '4913',
  () => '5036',
];

const manifestName = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}\.ya?ml$/);

describe('discovery beside an editor at work', () => {
  it('skips every lock, swap and backup an editor keeps, as a dangling link or a file, and still reads the manifest', () => {
    fc.assert(
      fc.property(manifestName, fc.subarray([...EDITOR_FORMS], { minLength: 1 }), fc.boolean(), (name, forms, asLinks) => {
        const dir = join(root, String((round += 1)));
        mkdirSync(dir);
        writeFileSync(join(dir, name), 'apiVersion: obsync/v1\n');
        for (const form of forms) {
          const path = join(dir, form(name));
          if (asLinks) symlinkSync('user@host.4242:1700000000', path);
          else writeFileSync(path, 'user@host.4242:1700000000');
        }
        expect(discoverFiles([dir])).toEqual({ files: [join(dir, name)], diagnostics: [] });
      }),
      { numRuns: 30 },
    );
  });

  it('still fails closed on any other broken link that may hold manifests', () => {
    const dir = join(root, 'others');
    mkdirSync(dir);
    symlinkSync('user@host.4242:1700000000', join(dir, '.#d.yaml'));
    for (const name of ['d.yaml', '#d.yaml', 'team', '4914', 'd.swp.yaml']) symlinkSync('nowhere', join(dir, name));
    const errors = discoverFiles([dir]).diagnostics.filter((d) => d.severity === 'error' && d.code === 'broken-link');
    expect(errors.map((d) => d.file).sort()).toEqual(['#d.yaml', '4914', 'd.swp.yaml', 'd.yaml', 'team'].map((n) => join(dir, n)).sort());
  });

  it('names only what editors make: a manifest that looks a little like one is not skipped', () => {
    for (const name of ['d.yaml', '.d.yaml', 'd#.yaml', 'swp.yaml', '.swp.yaml', 'd.swp.yaml', 'jb_tmp.yaml', '4913.yaml', '4914', '49130'])
      expect(isEditorScratch(name), name).toBe(false);
  });
});
