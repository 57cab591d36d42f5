// Writes docs/reference/{cli,metrics,events}.md from the built code (npm run docs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeReferencePages } from '../dist/cli/reference-pages.js';

const dir = join(import.meta.dirname, '..', 'docs', 'reference');
for (const [file, page] of await codeReferencePages()) writeFileSync(join(dir, file), page);
