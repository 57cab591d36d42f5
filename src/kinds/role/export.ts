/** A live custom role as a manifest (obsync export): the service's defaults and its added `read Connection` left out. */
import type { JsonObject } from '../../core/wire.js';
import type { ExportContext } from '../kind.js';
import type { RoleLive } from './model.js';
import { isAddedConnectionRead, sortedPermissions } from './permissions.js';

export function roleToManifest(live: RoleLive, _ctx: ExportContext): JsonObject {
  const spec: JsonObject = { name: live.name };
  if (live.description) spec.description = live.description;
  spec.permissions = sortedPermissions(live.permissions ?? [])
    .filter((p) => !isAddedConnectionRead(p))
    .map((p) => {
      const out: JsonObject = { action: p.action ?? '', subject: p.subject ?? '' };
      if (p.integration !== 'mongodb') out.integration = p.integration ?? 'mongodb';
      if (p.inverted === true) out.inverted = true;
      if (Array.isArray(p.fields) && p.fields.length > 0) out.fields = p.fields;
      if (p.conditions !== null && p.conditions !== undefined) out.conditions = p.conditions;
      return out;
    });
  return spec;
}
