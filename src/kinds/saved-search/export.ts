/** A live saved search as a manifest (obsync export): its source by name, the service's defaults left out. */
import type { JsonObject } from '../../core/wire.js';
import { nameOrIdJson } from '../export-helpers.js';
import { setPresent } from '../export-helpers.js';
import type { ExportContext } from '../kind.js';
import type { SavedSearchLive } from './model.js';

export function savedSearchToManifest(live: SavedSearchLive, ctx: ExportContext): JsonObject {
  const spec: JsonObject = { name: live.name.trim(), source: nameOrIdJson(ctx.ref('Source', live.sourceId ?? '')) };
  setPresent(spec, 'select', live.select);
  setPresent(spec, 'where', live.where);
  if (live.whereLanguage !== undefined && live.whereLanguage !== 'lucene') spec.whereLanguage = live.whereLanguage;
  setPresent(spec, 'orderBy', live.orderBy);
  setPresent(spec, 'tags', live.tags);
  // A condition filter is an sql one unless it says otherwise.
  setPresent(
    spec,
    'filters',
    (live.filters ?? []).map((f) => (f.type === 'sql' && typeof f.condition === 'string' ? { condition: f.condition } : f)),
  );
  return spec;
}
