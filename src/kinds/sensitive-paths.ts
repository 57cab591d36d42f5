/** The sensitive paths of every kind, read once from the schemas' marks. */
import type { Kind } from '../core/plan.js';
import { specSchemas } from './manifest.js';
import { sensitivePaths } from './sensitive.js';

export const SENSITIVE_PATHS: ReadonlyMap<Kind, readonly (readonly string[])[]> = new Map(
  (Object.keys(specSchemas) as Kind[]).map((kind) => [kind, sensitivePaths(specSchemas[kind])]),
);
