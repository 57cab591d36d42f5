// Writes docs/images/quickstart-*.png, the pictures of the README's quickstart change, from the built code (npm run docs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmePictures } from '../dist/cli/readme-pictures.js';

const root = join(import.meta.dirname, '..');
for (const [file, png] of await readmePictures(root)) writeFileSync(join(root, 'docs', 'images', file), png);
