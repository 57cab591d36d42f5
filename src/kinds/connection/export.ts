/**
 * A live connection as a manifest (obsync export). The service never returns the password: it
 * is left out, which keeps the one the service has (a manifest without one never changes it).
 */
import type { JsonObject } from '../../core/wire.js';
import type { ExportContext } from '../kind.js';
import type { ConnectionLive } from './model.js';

export function connectionToManifest(live: ConnectionLive, ctx: ExportContext): JsonObject {
  const spec: JsonObject = { name: live.name, host: live.host, username: live.username };
  if (live.hyperdxSettingPrefix != null) spec.hyperdxSettingPrefix = live.hyperdxSettingPrefix;
  if (live.isPrometheusEndpoint === true) spec.isPrometheusEndpoint = true;
  ctx.note('the service never returns the password: the one it has is kept; add password: ${env:NAME} to manage it');
  return spec;
}
