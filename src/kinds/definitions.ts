/** Every kind obsync manages, in one list (one folder per kind behind KindDefinition). */
import type { Kind } from '../core/plan.js';
import { alertDefinition } from './alert/definition.js';
import { dashboardDefinition } from './dashboard/definition.js';
import type { KindDefinition } from './kind.js';
import { pipeDefinition } from './pipe/definition.js';

export const KIND_DEFINITIONS: readonly KindDefinition[] = [
  pipeDefinition,
  dashboardDefinition,
  alertDefinition,
];

export const DEFINITIONS_BY_KIND: ReadonlyMap<Kind, KindDefinition> = new Map(KIND_DEFINITIONS.map((d) => [d.kind, d]));
