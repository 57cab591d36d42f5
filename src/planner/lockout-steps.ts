/** The lock-out guard (./lockout.ts) applied to a plan's steps: the member steps it refuses are taken out, each refusal an error. */
import type { Diagnostic } from '../core/diagnostics.js';
import type { LiveState } from '../core/live.js';
import type { PlanStep } from '../core/plan.js';
import { adminRoles, lockoutRefusals, type MemberChange, type MemberState } from './lockout.js';

export function guardLockout(steps: readonly PlanStep[], live: LiveState): { steps: PlanStep[]; diagnostics: Diagnostic[] } {
  const changes: MemberChange[] = steps
    .filter((s) => s.kind === 'TeamMember' && s.id !== undefined && (s.action === 'delete' || s.action === 'update'))
    .map((s) => {
      const role = s.payload?.role;
      return { address: s.address, id: s.id ?? '', action: s.action as 'update' | 'delete', ...(typeof role === 'string' ? { role } : {}) };
    });
  if (changes.length === 0) return { steps: [...steps], diagnostics: [] };
  const members = (live.objects('TeamMember') ?? []) as unknown as MemberState[];
  const refusals = lockoutRefusals(members, changes, adminRoles(customAdminRoles(live)));
  const refused = new Set(refusals.flatMap((r) => r.addresses));
  const diagnostics: Diagnostic[] = refusals.map((r) => ({
    severity: 'error',
    code: 'lockout',
    message: r.message,
    ...(r.addresses.length === 1 ? { address: r.addresses[0] } : {}),
  }));
  return { steps: steps.filter((s) => !refused.has(s.address)), diagnostics };
}

/** Custom roles that may manage everything (a `manage all` that is not inverted): as good as Admin. */
function customAdminRoles(live: LiveState): string[] {
  const roles = (live.objects('Role') ?? []) as unknown as {
    name: string;
    permissions?: { action?: string; subject?: string; inverted?: boolean | null }[] | null;
  }[];
  return roles
    .filter((r) => (r.permissions ?? []).some((p) => p.action === 'manage' && p.subject === 'all' && p.inverted !== true))
    .map((r) => r.name);
}
