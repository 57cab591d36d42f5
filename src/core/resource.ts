/** A desired object as loaded from the manifests (src/manifests produces these). */
import type { IgnoreRule } from './ignore.js';
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
  /** `metadata.waivers`: policy rules waived for this object, each with the reason reviewers see (src/policy). */
  waivers?: readonly { rule: string; reason: string }[];
  /**
   * Fields the UI owns (issue 48): `metadata.ignore`, then the target's rules for the kind
   * (obsync.yaml), each with where it was declared. The planner leaves differences there out.
   */
  ignore?: readonly IgnoreRule[];
  /** The validated spec (zod output of the kind's schema: defaults applied). */
  spec: Spec;
  source: SourceLocation;
  /**
   * A hash of the document the resource was loaded from, after interpolation: two resources with
   * the same digest are the same resource (kind, name, labels and spec). Absent for resources
   * built in code. A daemon's planner memo, and its taking of the last plan whole, compare
   * digests instead of whole specs: a resource derived from another (`{ ...res, spec }`) must
   * carry a digest of its own, or none.
   */
  digest?: string;
}

/** The manifest files of a load, for what the inventory remembers of where each owned object was declared. */
export interface ManifestFiles {
  /** The project's folder: files are recorded relative to it, so a checkout elsewhere (another CI runner) records the same. */
  root: string;
  /** The files read without error that declare nothing: empty, or only `---` or comments. */
  empty: readonly string[];
}

/** Where the planner finds a declared object's file as the inventory records it, and the files that declare nothing now (same form). */
export interface DeclaringFiles {
  of(res: DesiredResource): string;
  empty: ReadonlySet<string>;
}
