/**
 * Exceptions with a reason (issue 43.4): `metadata.waivers: [{rule, reason}]` in an object's
 * manifest waives that rule for that object only. A waived finding stays in every output, with
 * its reason, and blocks nothing. There is no global switch: only a manifest can waive.
 */
import type { Finding, Waiver } from './model.js';

/** The findings with the waivers of their objects applied (a finding without an address cannot be waived). */
export function applyWaivers(findings: readonly Finding[], waiversOf: (address: string) => readonly Waiver[] | undefined): Finding[] {
  return findings.map((f) => {
    if (f.address === undefined) return f;
    const waiver = waiversOf(f.address)?.find((w) => w.rule === f.rule);
    return waiver ? { ...f, waived: waiver.reason } : f;
  });
}
