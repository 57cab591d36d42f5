import { styled, type Format } from '../core/printable.js';

export type Style = (format: Format, text: string) => string;

/**
 * Colour only when the caller decided it is wanted (TTY, no NO_COLOR, no --no-color). The colours
 * are markers that the writers' output pass turns into escape sequences (core/printable.ts), so
 * text inside them is escaped like any other and a service cannot forge a colour.
 */
export function makeStyle(color: boolean): Style {
  return color ? styled : (_f, text) => text;
}
