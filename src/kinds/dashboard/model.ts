/** The parts of a Dashboard spec the definition reads (the schema in ./schema.ts is the full truth). */
import type { Json } from '../../core/wire.js';
import type { NameOrId } from '../refs.js';

export interface TileSpecView {
  key: string;
  /** Keys the tile had before: its id is found under them in the inventory's tile map. */
  previousKeys?: string[] | undefined;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** API tile config, except `source` / `connection` (NameOrId) in place of `sourceId` / `connectionId`. */
  config: { [k: string]: Json | NameOrId | undefined };
  containerId?: string | undefined;
  tabId?: string | undefined;
}

export interface FilterSpecView {
  source: NameOrId;
  [k: string]: Json | NameOrId | undefined;
}

export interface DashboardSpecView {
  name: string;
  tags?: string[] | undefined;
  tiles: TileSpecView[];
  filters?: FilterSpecView[] | undefined;
  savedQuery?: string | null | undefined;
  savedQueryLanguage?: string | null | undefined;
  savedFilterValues?: Json[] | undefined;
  containers?: Json[] | undefined;
}
