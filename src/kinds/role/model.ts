/** The parts of a Role spec the definition reads, and its live form. */
import * as z from 'zod';
import { objectId } from '../../core/wire.js';

export interface PermissionView {
  action: string;
  subject: string;
  conditions?: Record<string, unknown> | undefined;
  inverted?: boolean | undefined;
  integration?: string | undefined;
  fields?: string[] | undefined;
}

export interface RoleSpecView {
  name: string;
  description?: string | undefined;
  permissions: PermissionView[];
}

const livePermission = z.looseObject({
  action: z.string(),
  subject: z.string(),
  conditions: z.record(z.string(), z.json()).nullish(),
  inverted: z.boolean().nullish(),
  integration: z.string().nullish(),
  fields: z.array(z.string()).nullish(),
});

/** A role as `GET /roles` answers it (terraform-provider-clickhouse client/role.go). */
export const roleLive = z.looseObject({
  id: objectId,
  name: z.string(),
  description: z.string().nullish(),
  isPredefined: z.boolean().nullish(),
  permissions: z.array(livePermission).nullish(),
});
export type RoleLive = z.output<typeof roleLive>;
