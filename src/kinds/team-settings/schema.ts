/**
 * The TeamSettings manifest spec (self-hosted ClickStack with RBAC): the team's own settings, adopted from the team, never created or
 * deleted.
 */
import * as z from 'zod';
import type { TeamSettingsSpecView } from './model.js';

export const teamSettingsSpecSchema = z
  .strictObject({
    defaultUserRole: z
      .string()
      .min(1)
      .max(1024)
      .describe('Name of the role new users get (a predefined role such as Member, or a Role of this team).'),
  })
  .meta({
    id: 'TeamSettingsSpec',
    description: 'Settings of the team (self-hosted ClickStack with RBAC): adopted from the existing team; one per target.',
  });

export type TeamSettingsSpec = z.output<typeof teamSettingsSpecSchema>;
const _assignable: (s: TeamSettingsSpec) => TeamSettingsSpecView = (s) => s;
void _assignable;
