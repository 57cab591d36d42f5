/**
 * The Role manifest spec (self-hosted ClickStack with RBAC; terraform-provider-clickhouse
 * clickstack_role): a custom role and its CASL permissions. The predefined roles (Admin, Member,
 * ReadOnly) are never managed: team members name them.
 */
import * as z from 'zod';
import type { RoleSpecView } from './model.js';
import { NOT_BLANK_PATTERN } from '../rules.js';

export const PREDEFINED_ROLES = ['Admin', 'Member', 'ReadOnly'] as const;

const permission = z
  .strictObject({
    action: z
      .enum(['create', 'read', 'update', 'delete', 'manage'])
      .describe('What is allowed: create, read, update, delete or manage (all of them).'),
    subject: z.string().min(1).describe('What it applies to: e.g. Dashboard, Alert, Source, Connection, SavedSearch, Webhook, or all.'),
    conditions: z
      // Any JSON object (YAML gives nothing else); not z.json(), whose recursive schema editors cannot name.
      .record(z.string(), z.unknown())
      .optional()
      .describe('Conditions the objects must meet (a MongoDB filter, or a ClickHouse row policy for the clickhouse integration).'),
    inverted: z.boolean().optional().describe('A rule that forbids instead of allowing (default false).'),
    integration: z.enum(['mongodb', 'clickhouse']).optional().describe('mongodb (the API, the default) or clickhouse (data access).'),
    fields: z.array(z.string()).optional().describe('The fields the permission is restricted to (default: all).'),
  })
  .describe('One permission of the role.');

export const roleSpecSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .regex(new RegExp(NOT_BLANK_PATTERN), { error: 'a role name cannot be blank' })
      .max(1024)
      .refine((n) => !(PREDEFINED_ROLES as readonly string[]).includes(n), {
        error: 'Admin, Member and ReadOnly are predefined roles: name them in a TeamMember, never declare them',
      })
      .describe('Name of the role on the service; team members name it. How an existing role is adopted.'),
    description: z.string().max(2048).optional().describe('What the role is for.'),
    permissions: z
      .array(permission)
      .describe('The permissions. The service always adds read on Connection; obsync does not count that as a difference.'),
  })
  .meta({ id: 'RoleSpec', description: 'A custom RBAC role (self-hosted ClickStack with RBAC only).' });

export type RoleSpec = z.output<typeof roleSpecSchema>;
const _assignable: (s: RoleSpec) => RoleSpecView = (s) => s;
void _assignable;
