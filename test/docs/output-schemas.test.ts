/**
 * docs/schema is generated from the zod schemas (`npm run docs`): regenerated here in memory, every
 * file must be what is checked in. Every schema's `$id` is the raw URL of its committed file in
 * package.json's repository (JSON, not a web page), and the SchemaStore catalog entry beside them
 * offers the editor schema for obsync.yaml and *.obsync.yaml.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OUTPUT_SCHEMAS, outputJsonSchemaText, type OutputSchemaFile } from '../../src/cli/output-schemas.js';

const files = Object.keys(OUTPUT_SCHEMAS) as OutputSchemaFile[];
const CATALOG_ENTRY = 'schemastore-catalog-entry.json';
const EDITOR_SCHEMA = 'config-examples/obsync.schema.json';

/** https://raw.githubusercontent.com/OWNER/REPO/main/ of package.json's repository. */
function rawBase(): string {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { repository: { url: string } };
  const repo = /^git\+https:\/\/github\.com\/([\w.-]+\/[\w.-]+?)\.git$/.exec(pkg.repository.url)?.[1];
  expect(repo, 'package.json names a GitHub repository').toBeDefined();
  return `https://raw.githubusercontent.com/${repo}/main/`;
}

describe('docs/schema', () => {
  it('has exactly the generated files', () => {
    expect(readdirSync('docs/schema').sort()).toEqual([...files, CATALOG_ENTRY].sort());
  });

  it.each(files)('%s is current', (file) => {
    expect(readFileSync(`docs/schema/${file}`, 'utf8')).toBe(outputJsonSchemaText(file));
  });

  it('documents the events, /api/status and the notifications, each schema linked from docs/daemon-visibility.md', () => {
    const page = readFileSync('docs/daemon-visibility.md', 'utf8');
    for (const file of ['event.schema.json', 'status.schema.json', 'notification.schema.json']) expect(page).toContain(`(schema/${file})`);
  });

  it('gives every schema an $id that is its committed file as raw JSON in the repository', () => {
    const base = rawBase();
    for (const path of [EDITOR_SCHEMA, ...files.map((f) => `docs/schema/${f}`)]) {
      const schema = JSON.parse(readFileSync(path, 'utf8')) as { $id?: string };
      expect(schema.$id, path).toBe(`${base}${path}`);
    }
  });

  it('offers the editor schema to SchemaStore for obsync.yaml and *.obsync.yaml, documented in docs/editor-schema.md', () => {
    const entry = JSON.parse(readFileSync(`docs/schema/${CATALOG_ENTRY}`, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(entry).sort()).toEqual(['description', 'fileMatch', 'name', 'url']);
    expect(entry.url).toBe(`${rawBase()}${EDITOR_SCHEMA}`);
    expect(entry.fileMatch).toEqual(['obsync.yaml', 'obsync.yml', '*.obsync.yaml', '*.obsync.yml']);
    const page = readFileSync('docs/editor-schema.md', 'utf8');
    expect(page).toContain(`(schema/${CATALOG_ENTRY})`);
    expect(page).toContain(String(entry.url));
  });
});
