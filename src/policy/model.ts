/**
 * Policy before merge (issue 43): rules over manifests and plans. A rule reports findings; a
 * finding of severity `error` blocks apply (and makes `obsync lint` exit 1) unless the object's
 * manifest waives that rule with a reason. Everything here is pure: the CLI loads the files,
 * runs the rules and prints the findings.
 */

export type Severity = 'error' | 'warning';

/** One problem a rule found, at the manifest's file:line. */
export interface Finding {
  /** The rule's stable id: a built-in (`unused-webhook`) or a custom rule's `id`. */
  rule: string;
  severity: Severity;
  message: string;
  /** The object concerned (`Alert/checkout-p99`), absent for a problem of a Policy manifest itself. */
  address?: string;
  /** Where: the object's manifest (a custom rule that fails to compile: the rule's own line). */
  file?: string;
  line?: number;
  col?: number;
  /** The manifest waives this rule for this object (`metadata.waivers`): reported, but it blocks nothing. */
  waived?: string;
}

/** `metadata.waivers[]` of a manifest. */
export interface Waiver {
  rule: string;
  reason: string;
}

/** The findings that block: errors not waived. */
export function blocking(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.severity === 'error' && f.waived === undefined);
}

/** File, line, rule, address: the order every output lists findings in. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      a.rule.localeCompare(b.rule) ||
      (a.address ?? '').localeCompare(b.address ?? ''),
  );
}
