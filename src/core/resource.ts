/** A desired object as loaded from the manifests (src/manifests produces these). */
import type { Address, Kind } from './plan.js';

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export interface DesiredResource<Spec = unknown> {
  kind: Kind;
  name: string;
  address: Address;
  labels: Record<string, string>;
  /** The validated spec (zod output of the kind's schema: defaults applied). */
  spec: Spec;
  source: SourceLocation;
  /**
   * A hash of the document the resource was loaded from, after interpolation: two resources with
   * the same digest are the same resource (kind, name, labels and spec). Absent for resources
   * built in code. A daemon's planner memo compares digests instead of whole specs.
   */
  digest?: string;
}
