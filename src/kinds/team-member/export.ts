/** A live team member as a manifest (obsync export): email, name, and the role where the server has RBAC; never the invite URL. */
import type { JsonObject } from '../../core/wire.js';
import type { ExportContext } from '../kind.js';
import type { TeamMemberLive } from './model.js';

export function teamMemberToManifest(live: TeamMemberLive, ctx: ExportContext): JsonObject {
  const spec: JsonObject = { email: live.email };
  if (live.name !== undefined && live.name !== '') spec.name = live.name;
  if (live.role !== undefined) spec.role = live.role;
  if (live.status === 'pending') ctx.note('a pending invitation: the invite URL is never exported');
  if (live.isCurrentUser === true) ctx.note("the API key's own user: obsync never removes or demotes it");
  return spec;
}
