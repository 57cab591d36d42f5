/**
 * Saved searches (selfhosted-api §1.6, §3.4, §4.3, §4.4). PUT replaces the whole search (an
 * omitted field takes the service's default), so every body carries every field and the
 * comparison fills the same defaults. Adopted by name and source: names are not unique on the
 * service. Deleting a saved search deletes its alerts (the Alert kind declares that cascade).
 */
import type { Json, JsonObject } from '../../core/wire.js';
import type { Canonical, ManagedKind } from '../kind.js';
import { tokenJson } from '../refs.js';
import { savedSearchLive, type SavedSearchLive, type SavedSearchSpecView } from './model.js';
import { savedSearchSpecSchema } from './schema.js';
import { savedSearchToManifest } from './export.js';

export const savedSearch: ManagedKind<'SavedSearch', SavedSearchSpecView, SavedSearchLive> = {
  kind: 'SavedSearch',
  description:
    'A saved search over a source, which alerts may watch. obsync creates, updates and (with --prune) deletes it; the service ' +
    'deletes its alerts with it.',
  managed: true,
  noun: 'saved search',
  refersTo: ['Source'],
  live: savedSearchLive,
  routes: {
    'self-hosted': { api: 'observability', path: 'saved-searches', paging: 'offset', update: 'PUT' },
    hosted: { api: 'observability', path: 'saved-searches', paging: 'offset', update: 'PUT' },
  },
  read: 'always',
  displayName: (live) => live.name,
  liveRefs: (live) => (live.sourceId ? [{ kind: 'Source', id: live.sourceId }] : []),
  spec: savedSearchSpecSchema,
  creatable: true,
  deletable: true,
  markField: 'tags',

  references: (spec) => [{ kind: 'Source', ref: spec.source, path: ['source'] }],

  toManifest: savedSearchToManifest,
  desiredKey(res, refs) {
    const source = refs.ref('Source', res.spec.source);
    return source.ok && source.id !== null ? keyOf(res.spec.name, source.id) : null;
  },
  liveKey: (live) => keyOf(live.name, live.sourceId ?? ''),
  bodyKey: (body) => keyOf(str(body.name), str(body.sourceId)),

  canonicalDesired(res, refs): Canonical {
    const source = refs.ref('Source', res.spec.source);
    if (!source.ok) return { ok: false, errors: [`${source.error} (at spec.source)`] };
    return { ok: true, value: withFields({ source: tokenJson(source.token) }, res.spec) };
  },

  canonicalLive(live, { tokens }) {
    return withFields({ source: tokenJson(tokens.token('Source', live.sourceId ?? '')) }, live);
  },

  createPayload: (res, refs) => payload(res.spec, refs.wire('Source', res.spec.source)),
  update: (res, _live, { refs }) => ({ payload: payload(res.spec, refs.wire('Source', res.spec.source)) }),
  recreatePayload: (body) => ({ ...body }),
};

const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');

function keyOf(name: string, sourceId: string): string {
  return `${name.trim()}|${sourceId}`;
}

/** What the manifest and the live object share, as either spells it. */
interface SearchFields {
  name: string;
  select?: string | null | undefined;
  where?: string | null | undefined;
  whereLanguage?: string | null | undefined;
  orderBy?: string | null | undefined;
  tags?: readonly string[] | null | undefined;
  filters?: readonly object[] | null | undefined;
}

/** The fields with the service's defaults, assigned onto `out`: one list for both sides, so they cannot drift apart. */
function withFields(out: JsonObject, fields: SearchFields): JsonObject {
  out.name = fields.name;
  out.select = fields.select ?? '';
  out.where = fields.where ?? '';
  out.whereLanguage = fields.whereLanguage ?? 'lucene';
  out.orderBy = fields.orderBy ?? '';
  out.tags = [...(fields.tags ?? [])];
  out.filters = (fields.filters ?? []).map((f) => filterWithType(f as { [k: string]: Json }));
  return out;
}

/** A condition filter without a type is an sql one (the service fills it). */
function filterWithType(filter: { [k: string]: Json }): Json {
  return filter.type === undefined ? { ...filter, type: 'sql' } : filter;
}

/** Every field, so that PUT (a full replace) keeps nothing the manifest left out. */
function payload(spec: SavedSearchSpecView, sourceId: Json | null): JsonObject {
  // An unresolvable source was reported by canonicalDesired; such a step never reaches apply.
  return withFields({ sourceId: sourceId ?? '' }, spec);
}
