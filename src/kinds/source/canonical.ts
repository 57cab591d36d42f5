/**
 * The service's normalisation of sources (selfhosted-api §3.5, §4.3; hosted-api §2.4), applied to
 * the desired and the live form alike: empty lists and `disabled: false` are what an absent
 * field reads as, granularities are answered in short form (`5m`), a trace's duration precision
 * defaults to 3, and the hosted API answers unset expressions as "".
 */
import type { Json } from '../../core/wire.js';
import { isJsonObject as isObj, setOwn } from '../../core/json.js';

type Obj = { [k: string]: Json };

const LONG_TO_SHORT: Record<string, string> = { second: 's', minute: 'm', hour: 'h', day: 'd' };

export function shortGranularity(value: Json | undefined): Json | undefined {
  if (typeof value !== 'string') return value;
  const m = /^(\d+) (second|minute|hour|day)$/.exec(value);
  return m ? `${m[1]}${LONG_TO_SHORT[m[2] ?? ''] ?? ''}` : value;
}

/** Drops absent-equivalent values and fills the defaults; `fields` is the source in manifest terms (references already tokens). */
export function canonicalSource(fields: Obj): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    if (key === 'disabled' && value === false) continue;
    setOwn(out, key, value);
  }
  if (out.kind === 'trace') out.durationPrecision ??= 3;
  if (Array.isArray(out.materializedViews)) out.materializedViews = out.materializedViews.map((v) => (isObj(v) ? canonicalView(v) : v));
  if (isObj(out.metadataMaterializedViews))
    out.metadataMaterializedViews = withoutNulls({
      ...out.metadataMaterializedViews,
      granularity: shortGranularity(out.metadataMaterializedViews.granularity) ?? null,
    });
  return out;
}

function canonicalView(view: Obj): Obj {
  return withoutNulls({ ...view, minGranularity: shortGranularity(view.minGranularity) ?? null });
}

function withoutNulls(obj: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined && v !== '') setOwn(out, k, v);
  return out;
}
