/**
 * HTML from hostile text (object names, server messages, manifest paths): every character that
 * could open markup or an attribute is an entity, and control, bidi and zero-width characters
 * are shown escaped (`\u202e`), never obeyed. The status pages build every text node with `text()`.
 */
import { printable } from '../core/printable.js';
import { utcText } from '../events/describe.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };
/** Zero-width and invisible formatting characters a reader cannot see (printable() covers the bidi ones). */
const INVISIBLE = /[\u200b-\u200d\u2060-\u2064\ufeff]/g;

/** A text node or attribute value. */
export function text(value: string): string {
  return printable(value)
    .replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[&<>"'`]/g, (c) => ENTITIES[c] ?? c);
}

/** A path segment of a link (a target name). */
export function urlPart(value: string): string {
  return text(encodeURIComponent(value));
}

/** `<time>` of an ISO instant, shown in UTC, with how long ago when `now` is given. */
export function timeTag(iso: string, now?: Date): string {
  const when = utcText(iso);
  const ago = now ? relative(Date.parse(iso) - now.getTime()) : '';
  return `<time datetime="${text(iso)}">${text(when)}</time>${ago ? ` <span class="ago">(${ago})</span>` : ''}`;
}

function relative(deltaMs: number): string {
  if (!Number.isFinite(deltaMs)) return '';
  const s = Math.round(Math.abs(deltaMs) / 1000);
  const span = s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  return deltaMs <= 0 ? `${span} ago` : `in ${span}`;
}
