/**
 * A live pipe as a manifest (obsync export): which pipe (its name when unique, else its id), and
 * its current settings, scaling and state only — the fields obsync then owns. Source
 * credentials are never exported (the service never returns them).
 */
import { setOwn } from '../../core/json.js';
import type { JsonObject, WirePipe } from '../../core/wire.js';
import type { ExportContext } from '../kind.js';
import { parseCount, parseGigabytes, parseMillicores } from './quantity.js';
import { pipeScalingSchema, pipeSettingsSchema } from './schema.js';
import { stateOf } from './states.js';

export function pipeToManifest(live: WirePipe, ctx: ExportContext): JsonObject {
  const spec: JsonObject = ctx.uniqueDisplayName() ? { name: live.name } : { id: live.id };
  const state = stateOf(live.state);
  if (state === 'running' || state === 'stopped') spec.state = state;
  else ctx.note(`the pipe is ${live.state}: its state is left out`);
  const settings: JsonObject = {};
  for (const key of Object.keys(pipeSettingsSchema.shape)) {
    const value = live.settings?.[key];
    if (value !== undefined && value !== null) setOwn(settings, key, value);
  }
  if (Object.keys(settings).length > 0) spec.settings = settings;
  const scaling: JsonObject = {};
  const parsed = {
    replicas: parseCount(live.scaling?.replicas),
    replicaCpuMillicores: parseMillicores(live.scaling?.replicaCpuMillicores),
    replicaMemoryGb: parseGigabytes(live.scaling?.replicaMemoryGb),
  };
  for (const key of Object.keys(pipeScalingSchema.shape) as (keyof typeof parsed)[]) {
    const value = parsed[key];
    if (typeof value === 'number') setOwn(scaling, key, value);
  }
  if (Object.keys(scaling).length > 0) spec.scaling = scaling;
  return spec;
}
