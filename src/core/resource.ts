/** A desired object as loaded from the manifests (src/manifests produces these). */
import type { Address, Kind } from './plan.js';

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
  /**
   * Where the fields that refer to other objects stand (`spec.channel.webhook` → its line), so a
   * reference the planner cannot resolve points at its field, not at the document.
   */
  fields?: Readonly<Record<string, { line: number; col: number }>>;
}

export interface DesiredResource<Spec = unknown> {
  kind: Kind;
  name: string;
  address: Address;
  labels: Record<string, string>;
  /**
   * `metadata.previousNames`: names this object was owned under before a rename. The plan moves
   * an owned object from `Kind/<previous name>` to this address instead of creating a new one.
   */
  previousNames?: readonly string[];
  /** The validated spec (zod output of the kind's schema: defaults applied). */
  spec: Spec;
  source: SourceLocation;
}
