/**
 * The preview files of a plan's dashboards: per dashboard a stable file name, its SVG and PNG, or
 * the reason it was skipped. Never throws: a preview that cannot be made is a "preview skipped" line.
 */
import { createHash } from 'node:crypto';
import { errorMessage } from '../../core/errors.js';
import { finalText } from '../../core/output.js';
import type { DashboardPreviewInput } from './model.js';
import { dashboardOption } from './option.js';
import { pngOf } from './png.js';
import type { PictureOption } from './option.js';
import { svgOf } from './svg.js';

/** A picture's SVG, and its PNG unless only the SVG was asked for (the daemon's status page shows SVGs). */
export type DashboardPicture =
  | { address: string; base: string; svg: string; png: Buffer | undefined }
  | { address: string; skipped: string };

export interface PictureFormats {
  png: boolean;
}

export function dashboardPictures(inputs: readonly DashboardPreviewInput[], formats: PictureFormats = { png: true }): DashboardPicture[] {
  const names = baseNames(inputs);
  return inputs.map((input, i) => {
    return picture(input.address, names[i] ?? `dashboard-${i}`, () => dashboardOption(input), formats);
  });
}

/**
 * Every picture obsync writes is drawn here: its SVG scrubbed and through the output pass once, as
 * a file obsync writes, and the PNG drawn from that text. A failure is a skipped picture, never a throw.
 */
export function picture(
  address: string,
  base: string,
  draw: () => PictureOption | { skipped: string },
  formats: PictureFormats = { png: true },
): DashboardPicture {
  try {
    const option = draw();
    if ('skipped' in option) return { address, skipped: option.skipped };
    const svg = finalText(svgOf(option));
    return { address, base, svg, png: formats.png ? pngOf(svg) : undefined };
  } catch (err) {
    return { address, skipped: errorMessage(err) };
  }
}

/** `dashboard-<name>`: the manifest name made file-safe; names that collide (or say nothing) get a hash of their address. */
export function baseNames(inputs: readonly Pick<DashboardPreviewInput, 'address'>[], prefix = 'dashboard'): string[] {
  const slugs = inputs.map((i) => slug(i.address.slice(i.address.indexOf('/') + 1)));
  return slugs.map((s, i) => {
    const address = inputs[i]?.address ?? '';
    const unique = s !== '' && slugs.indexOf(s) === slugs.lastIndexOf(s);
    return unique ? `${prefix}-${s}` : `${prefix}-${s}${s ? '-' : ''}${createHash('sha256').update(address).digest('hex').slice(0, 8)}`;
  });
}

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
}
