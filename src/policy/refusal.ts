/** Policy refuses an apply as a whole when an error finding is not waived (issue 43: error blocks apply, warning reports). */
import { ObsyncError } from '../core/errors.js';
import type { Plan } from '../core/plan.js';
import { blocking, type Finding } from './model.js';

export class PolicyRefusal extends ObsyncError {
  override readonly name = 'PolicyRefusal';
  constructor(
    target: string,
    lines: readonly string[],
    /** Every finding of the refused plan (warnings and waived ones too): `apply --output sarif` reports them. */
    readonly findings: readonly Finding[] = [],
  ) {
    super('POLICY', `apply refused on target '${target}': ${lines.length} policy error(s)\n${lines.join('\n')}`, {
      hint: 'fix the objects, or waive the rule for one object with metadata.waivers: [{rule, reason}] in its manifest (docs/policy.md)',
    });
  }

  /** Throws when the plan's policy findings hold an unwaived error; nothing is written then. */
  static check(plan: Plan): void {
    const errors = blocking(plan.policy ?? []);
    if (errors.length === 0) return;
    const where = (f: (typeof errors)[number]) => (f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : '');
    throw new PolicyRefusal(
      plan.target,
      errors.map((f) => `${where(f)}${f.message} [${f.rule}]`),
      plan.policy ?? [],
    );
  }
}
