/** The parts of a TeamMember spec the definition reads, and its live form (composed by src/remote/team.ts). */
import * as z from 'zod';

export interface TeamMemberSpecView {
  email: string;
  name?: string | undefined;
  role?: string | undefined;
}

/**
 * A member or a pending invitation, one per email: its id is the lower-cased email. The invite URL
 * and a virtual member's access key are never part of it (strict: a field this form does not
 * know is dropped, not kept).
 */
export const teamMemberLive = z.object({
  // The lower-cased email: never part of a request path (the port sends the server's own ids).
  id: z.string().min(1).max(320),
  email: z.string(),
  status: z.enum(['active', 'pending']),
  name: z.string().optional(),
  role: z.string().optional(),
  isCurrentUser: z.boolean().optional(),
});
export type TeamMemberLive = z.output<typeof teamMemberLive>;
