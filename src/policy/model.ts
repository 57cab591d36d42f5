/**
 * Policy before merge (issue 43): rules over manifests and plans. A rule reports findings; a
 * finding of severity `error` blocks apply (and makes `obsync lint` exit 1) unless the object's
 * manifest waives that rule with a reason. Everything here is pure: the CLI loads the files,
 * runs the rules and prints the findings.
 */

export type Severity = 'error' | 'warning';

import type { PolicyFinding } from '../core/finding.js';
import type { DesiredResource } from '../core/resource.js';

/** One problem a rule found, at the manifest's file:line (a rule that does not compile: the rule's own line). */
export type Finding = PolicyFinding;

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

/** A finding about one object, at its manifest. */
export function findingAt(res: DesiredResource, rule: string, severity: Severity, message: string): Finding {
  return { rule, severity, message, address: res.address, file: res.source.file, line: res.source.line, col: res.source.col };
}
