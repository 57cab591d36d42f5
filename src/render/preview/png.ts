/**
 * An SVG as PNG with resvg, from the one font obsync ships with (DejaVu Sans, from the pinned
 * dejavu-fonts-ttf package) and never the machine's fonts: the same picture on every machine.
 */
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import { FONT_FAMILY } from './option.js';

const require = createRequire(import.meta.url);

export function fontFile(): string {
  return require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
}

export function pngOf(svg: string): Buffer {
  const font = fontFile();
  const resvg = new Resvg(svg, {
    font: { loadSystemFonts: false, fontFiles: [font], defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
    background: '#ffffff',
  });
  return resvg.render().asPng();
}
