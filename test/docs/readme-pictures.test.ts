/**
 * docs/images/quickstart-*.png are the pictures of the README's quickstart change (issue 42), made by
 * `npm run docs` (src/cli/readme-pictures.ts): redrawn here in memory, each must be what is checked
 * in (pixel by pixel, within the golden images' tolerance) and shown by the README.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmePictures } from '../../src/cli/readme-pictures.js';
import { comparePixels, decodePng } from '../golden/png-pixels.js';

const root = join(import.meta.dirname, '../..');
const images = join(root, 'docs', 'images');
const pictures = await readmePictures(root);

describe("the README's quickstart pictures", () => {
  it('are exactly the drawn files, each current (run `npm run docs` after changing the examples or the drawing)', () => {
    expect(
      readdirSync(images)
        .filter((f) => f.startsWith('quickstart-'))
        .sort(),
    ).toEqual([...pictures.keys()].sort());
    for (const [file, png] of pictures) {
      const result = comparePixels(decodePng(png), decodePng(readFileSync(join(images, file))), { channel: 48, ratio: 0.002 });
      expect(result.ok, `${file}: ${result.why ?? `${result.differing} pixels differ`}`).toBe(true);
    }
  });

  it('are shown by the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const file of pictures.keys()) expect(readme).toContain(`](docs/images/${file})`);
  });
});
