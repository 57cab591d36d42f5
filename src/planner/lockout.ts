/**
 * The lock-out guard (issue 44): a plan never removes or demotes the user the API key belongs to,
 * and never leaves the team without an active member holding an admin-equivalent role. The steps
 * that would are taken out of the plan, and the refusal names the members. Pure: members, the
 * plan's member changes and which roles count as admin in, the refusals out.
 */

export interface MemberState {
  /** The member's live id (its lower-cased email). */
  id: string;
  email: string;
  status: 'active' | 'pending';
  /** Absent where the server has no RBAC: every member may do everything there. */
  role?: string | undefined;
  isCurrentUser?: boolean | undefined;
}

export interface MemberChange {
  address: string;
  id: string;
  action: 'update' | 'delete';
  /** The role after an update (absent: unchanged). */
  role?: string | undefined;
}

export interface LockoutRefusal {
  /** Addresses of the steps taken out. */
  addresses: string[];
  message: string;
}

/** Admin-equivalent: no RBAC at all, the predefined Admin, or a role that manages everything. */
export function adminRoles(customAdmins: Iterable<string>): (role: string | undefined) => boolean {
  const admins = new Set(['Admin', ...customAdmins]);
  return (role) => role === undefined || admins.has(role);
}

export function lockoutRefusals(
  members: readonly MemberState[],
  changes: readonly MemberChange[],
  isAdmin: (role: string | undefined) => boolean,
): LockoutRefusal[] {
  const byId = new Map(members.map((m) => [m.id, m]));
  const refusals: LockoutRefusal[] = [];
  const losesAdmin = (c: MemberChange, m: MemberState) =>
    c.action === 'delete' || (c.role !== undefined && !isAdmin(c.role) && isAdmin(m.role));

  const own = changes.filter((c) => {
    const m = byId.get(c.id);
    return m?.isCurrentUser === true && (c.action === 'delete' || (c.role !== undefined && c.role !== m.role && !isAdmin(c.role)));
  });
  for (const c of own)
    refusals.push({
      addresses: [c.address],
      message:
        `refused: ${c.address} (${byId.get(c.id)?.email ?? c.id}) is the user obsync's API key belongs to; obsync never ` +
        `${c.action === 'delete' ? 'removes' : 'demotes'} it (do it in the UI, as another admin)`,
    });

  const refusedOwn = new Set(own.map((c) => c.address));
  const rest = changes.filter((c) => !refusedOwn.has(c.address));
  const activeAdmins = members.filter((m) => m.status === 'active' && isAdmin(m.role));
  if (activeAdmins.length === 0) return refusals;
  const losing = rest.filter((c) => {
    const m = byId.get(c.id);
    return m !== undefined && m.status === 'active' && isAdmin(m.role) && losesAdmin(c, m);
  });
  if (losing.length >= activeAdmins.length) {
    const who = losing.map((c) => byId.get(c.id)?.email ?? c.id).sort();
    refusals.push({
      addresses: losing.map((c) => c.address).sort(),
      message:
        `refused: the plan would leave the team without an admin: it removes or demotes every member with an ` +
        `admin-equivalent role (${who.join(', ')}); keep at least one`,
    });
  }
  return refusals;
}
