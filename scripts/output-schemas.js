// Writes docs/schema/*.schema.json from the built zod schemas (npm run docs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUTPUT_SCHEMAS, outputJsonSchemaText } from '../dist/cli/output-schemas.js';

const dir = join(import.meta.dirname, '..', 'docs', 'schema');
mkdirSync(dir, { recursive: true });
for (const file of Object.keys(OUTPUT_SCHEMAS)) writeFileSync(join(dir, file), outputJsonSchemaText(file));
