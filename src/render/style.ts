import { styleText } from 'node:util';

export type Style = (format: Parameters<typeof styleText>[0], text: string) => string;

/** Colour only when the caller decided it is wanted (TTY, no NO_COLOR, no --no-color). */
export function makeStyle(color: boolean): Style {
  return color ? (format, text) => styleText(format, text, { validateStream: false }) : (_f, text) => text;
}
