import * as z from 'zod';

/** Names are used in file names (inventory, lock) and flags. */
export const targetName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a target name is lowercase letters, digits and "-" (at most 63)')
  .describe('Name of the target, chosen with --target (lowercase letters, digits and "-"); also names its inventory and lock.');
