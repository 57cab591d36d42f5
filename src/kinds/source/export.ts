/**
 * A live source as a manifest (obsync export): only the fields its kind has, the connection and
 * the linked sources by name, and what the service's normalisation (./canonical.ts) fills in
 * anyway (empty values, `disabled: false`, a trace's default precision) left out.
 */
import { setOwn } from '../../core/json.js';
import type { Json, JsonObject } from '../../core/wire.js';
import { nameOrIdJson } from '../export-helpers.js';
import { withoutDefaults } from '../export-helpers.js';
import type { ExportContext } from '../kind.js';
import { canonicalSource } from './canonical.js';
import { LINKS, type LinkField, type SourceLive } from './model.js';
import { SOURCE_FIELDS } from './schema.js';

const REFERENCES = new Set<string>(['connection', ...Object.keys(LINKS)]);

export function sourceToManifest(live: SourceLive, ctx: ExportContext): JsonObject {
  const fields = SOURCE_FIELDS[live.kind as keyof typeof SOURCE_FIELDS] ?? ['kind', 'name'];
  const raw = live as unknown as { [k: string]: Json | undefined };
  const plain: JsonObject = {};
  for (const field of fields) {
    const value = raw[field];
    if (!REFERENCES.has(field) && value !== undefined) setOwn(plain, field, value);
  }
  const minimal = withoutDefaults(plain, canonicalSource, ['kind', 'name']);
  const spec: JsonObject = { kind: live.kind, name: live.name };
  if (typeof raw.connection === 'string') spec.connection = nameOrIdJson(ctx.ref('Connection', raw.connection));
  for (const [key, value] of Object.entries(minimal)) if (key !== 'kind' && key !== 'name') setOwn(spec, key, value);
  for (const field of Object.keys(LINKS) as LinkField[]) {
    if (!fields.includes(field)) continue;
    const id = raw[LINKS[field]];
    if (typeof id === 'string' && id !== '') setOwn(spec, field, nameOrIdJson(ctx.ref('Source', id)));
  }
  return spec;
}
