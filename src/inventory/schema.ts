import * as z from 'zod';
import type { InventoryEntry } from '../core/inventory.js';
import { KINDS } from '../kinds/registry.js';

export const inventoryEntrySchema: z.ZodType<InventoryEntry> = z.object({
  kind: z.enum(KINDS),
  name: z.string().min(1),
  id: z.string().nullable(),
  status: z.enum(['pending', 'owned']),
  naturalKey: z.string(),
  preexisting: z.array(z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  specHash: z.string().optional(),
  tiles: z.record(z.string(), z.string()).optional(),
  secrets: z.record(z.string(), z.string()).optional(),
  nonConvergent: z.array(z.object({ path: z.string(), desired: z.json() })).optional(),
  source: z.string().optional(),
  updatedAt: z.string(),
});
