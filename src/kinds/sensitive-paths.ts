/** The sensitive paths of every kind, read once from the schemas' marks. */
import type { Kind } from '../core/plan.js';
import { MANAGED } from './registry.js';
import { sensitivePaths } from './sensitive.js';

export const SENSITIVE_PATHS: ReadonlyMap<Kind, readonly (readonly string[])[]> = new Map(
  MANAGED.map((d) => [d.kind, sensitivePaths(d.spec)]),
);
