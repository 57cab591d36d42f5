/** A policy finding as plans carry it (src/policy makes them; core only names the shape). */
export interface PolicyFinding {
  /** The rule's stable id: a built-in (`unused-webhook`) or a custom rule's `id`. */
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  /** The object concerned (`Alert/checkout-p99`), absent for a problem of a Policy manifest itself. */
  address?: string;
  file?: string;
  line?: number;
  col?: number;
  /** The manifest waives this rule for this object (`metadata.waivers`): reported, but it blocks nothing. */
  waived?: string;
}
