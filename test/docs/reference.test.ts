/** docs/reference is generated from the schema and the code (`npm run docs`): regenerated here in memory, it must be what is checked in. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeReferencePages } from '../../src/cli/reference-pages.js';
import { documentJsonSchema } from '../../src/config/json-schema.js';
import { referencePages } from '../../src/manifests/schema-docs.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '../../docs/reference');
const schemaPages = referencePages(documentJsonSchema());
const pages = new Map([...schemaPages, ...(await codeReferencePages())]);

describe('docs/reference', () => {
  it('has exactly the generated pages', () => {
    expect(readdirSync(dir).sort()).toEqual([...pages.keys()].sort());
  });

  it.each([...pages.keys()])('%s is current (run `npm run docs` after changing a schema)', (file) => {
    expect(readFileSync(join(dir, file), 'utf8')).toBe(pages.get(file));
  });

  it('links only to sections of the same page and to the other pages', () => {
    for (const [file, text] of schemaPages) {
      const anchors = new Set([...text.matchAll(/^## (\S+)$/gm)].map((m) => (m[1] ?? '').toLowerCase()));
      for (const [, target] of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)]+)\)/g)) {
        if (target?.startsWith('#')) expect(anchors, `${file} → ${target}`).toContain(target.slice(1));
        else expect(pages.has(target ?? ''), `${file} → ${target}`).toBe(true);
      }
    }
  });

  it('documents every field of every kind and of obsync.yaml', () => {
    const all = [...pages.values()].join('\n');
    for (const field of [
      'spec',
      'tiles',
      'displayType',
      'thresholdType',
      'scheduleOffsetMinutes',
      'streaming_max_insert_wait_ms',
      'replicaCpuMillicores',
      'timeoutSeconds',
      'defaults.maxDeletes',
    ])
      expect(all).toContain(`${field}\``);
    expect(all).not.toMatch(/\| {2}\|\n/); // no row without a description
  });
});
