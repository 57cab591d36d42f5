/**
 * The visible "managed in Git" mark (issue 48): a tag on the objects that have tags (dashboards,
 * saved searches), a line at the end of the description of those that have one (an alert's note).
 * The remote client adds it to every body obsync sends and takes it out of every object it reads
 * (src/remote/index.ts), the one place: so the planner's comparison, plans, pull and export never
 * see it, and an object round-trips (export → plan) with no change.
 */
import type { Json, JsonObject } from '../core/wire.js';

export interface Mark {
  tag?: string;
  /** One line, added to the description. */
  description?: string;
}

/** Where a kind's objects carry the mark: their `tags` list, or their description (`note`). */
export type MarkField = 'tags' | 'note';

/** The service's limits (selfhosted-api §3.1, §3.2): a mark that does not fit is not added. */
const MAX_TAGS = 50;
const MAX_DESCRIPTION = 4096;
const SEPARATOR = '\n\n';

/** A write body with the mark added (a copy; the body is left as it was). */
export function withMark(field: MarkField, body: JsonObject, mark: Mark): JsonObject {
  if (field === 'tags') {
    if (mark.tag === undefined) return body;
    const tags = Array.isArray(body.tags) ? body.tags : [];
    if (tags.includes(mark.tag) || tags.length >= MAX_TAGS) return body;
    return { ...body, tags: [...tags, mark.tag] };
  }
  if (mark.description === undefined) return body;
  const note = typeof body.note === 'string' && body.note !== '' ? `${body.note}${SEPARATOR}${mark.description}` : mark.description;
  return note.length > MAX_DESCRIPTION ? body : { ...body, note };
}

/** A live object without the mark (the same object when it has none). */
export function withoutMark<T extends object>(field: MarkField, live: T, mark: Mark): T {
  const value = (live as { [k: string]: Json | undefined })[field];
  if (field === 'tags') {
    if (mark.tag === undefined || !Array.isArray(value) || !value.includes(mark.tag)) return live;
    return { ...live, tags: value.filter((t) => t !== mark.tag) };
  }
  const line = mark.description;
  if (line === undefined || typeof value !== 'string') return live;
  if (value === line) return { ...live, note: null };
  return value.endsWith(`${SEPARATOR}${line}`) ? { ...live, note: value.slice(0, -(SEPARATOR.length + line.length)) } : live;
}

/** Where a manifest spells the mark itself (it would be taken out of the live object and differ forever), or undefined. */
export function markInSpec(field: MarkField, spec: unknown, mark: Mark): string | undefined {
  const value = typeof spec === 'object' && spec !== null ? (spec as { [k: string]: unknown })[field] : undefined;
  if (field === 'tags' && mark.tag !== undefined && Array.isArray(value) && value.includes(mark.tag))
    return (
      `spec.tags lists '${mark.tag}', the target's mark (mark.tag in obsync.yaml), which obsync adds itself: remove it from ` +
      `the manifest`
    );
  if (field === 'note' && mark.description !== undefined && typeof value === 'string' && value.endsWith(mark.description))
    return (
      "spec.note ends with the target's mark (mark.description in obsync.yaml), which obsync adds itself: remove that line " +
      'from the manifest'
    );
  return undefined;
}
