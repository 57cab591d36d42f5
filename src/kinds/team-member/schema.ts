/**
 * The TeamMember manifest spec (self-hosted): one person's membership of the team, by email.
 * Created by an invitation; on ClickStack with RBAC its role is a role's name (a predefined role
 * such as Admin, Member or ReadOnly, or a Role manifest's spec.name). Open-source HyperDX has no
 * roles: leave `role` out there.
 */
import * as z from 'zod';
import type { TeamMemberSpecView } from './model.js';

export const teamMemberSpecSchema = z
  .strictObject({
    // Loose on purpose: the service checks addresses itself, and its own users may have a local one (sandbox@localhost).
    email: z
      .string()
      .trim()
      .regex(/^[^@\s]+@[^@\s]+$/, { error: 'not an email address (name@domain)' })
      .max(320)
      .describe('Email address of the member: how the member is found on the service (compared without case).'),
    name: z
      .string()
      .max(1024)
      .optional()
      .describe("Display name sent with the invitation; the service keeps an account's own name, so it is not compared."),
    role: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        'Name of the role (ClickStack with RBAC only): a predefined role (Admin, Member, ReadOnly) or a Role of this team. Left ' +
          'out: the role the service gives (the team default), not compared.',
      ),
  })
  .meta({
    id: 'TeamMemberSpec',
    description: 'A member of the team (self-hosted): invited by email, with a role where the server has RBAC.',
  });

export type TeamMemberSpec = z.output<typeof teamMemberSpecSchema>;
const _assignable: (s: TeamMemberSpec) => TeamMemberSpecView = (s) => s;
void _assignable;
