/** docs/schema is generated from the zod schemas (`npm run docs`): regenerated here in memory, every file must be what is checked in. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OUTPUT_SCHEMAS, outputJsonSchemaText, type OutputSchemaFile } from '../../src/render/output-schema.js';

const files = Object.keys(OUTPUT_SCHEMAS) as OutputSchemaFile[];

describe('docs/schema', () => {
  it('has exactly the generated files', () => {
    expect(readdirSync('docs/schema').sort()).toEqual([...files].sort());
  });

  it.each(files)('%s is current', (file) => {
    expect(readFileSync(`docs/schema/${file}`, 'utf8')).toBe(outputJsonSchemaText(file));
  });

  it('documents the events, /api/status and the notifications, each schema linked from docs/daemon-visibility.md', () => {
    const page = readFileSync('docs/daemon-visibility.md', 'utf8');
    for (const file of ['event.schema.json', 'status.schema.json', 'notification.schema.json']) expect(page).toContain(`(schema/${file})`);
  });
});
