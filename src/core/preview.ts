/** What `plan --preview-dir` draws of a dashboard the plan creates or updates (issue 42): engine fills it, render/preview draws it. */
import type { JsonObject } from './wire.js';

export interface DashboardPreviewInput {
  address: string;
  name: string;
  /** The body the plan sends. */
  after: JsonObject;
  /** An update: the live dashboard. */
  before?: JsonObject;
  /** Per tile of `after` (by position): its recent series, or why there is none. */
  data?: (TileData | undefined)[];
  /** The same per tile of `before`. */
  beforeData?: (TileData | undefined)[];
}

export type TileData = { points: TilePoint[] } | { reason: string };

export interface TilePoint {
  bucket: number;
  group: string;
  value: number | null;
}

/** What a tile's data covers: the last 6 hours in 5-minute buckets (the caption of a number says so). */
export const PREVIEW_WINDOW = { historyMs: 6 * 3_600_000, bucketMs: 300_000 } as const;
