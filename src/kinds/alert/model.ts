/** The parts of an Alert spec the definition reads (the schema in ./schema.ts is the full truth). */
import type { NameOrId } from '../refs.js';

export interface AlertChannelSpec {
  type: 'webhook';
  webhook: NameOrId;
}

export interface AlertSpecView {
  source?: 'inline' | undefined;
  chart?: { [k: string]: unknown; displayType: string } | undefined;
  where?: string | undefined;
  whereLanguage?: string | undefined;
  dashboard?: NameOrId | undefined;
  tile?: NameOrId | undefined;
  savedSearch?: NameOrId | undefined;
  groupBy?: string | undefined;
  interval: string;
  threshold: number;
  thresholdType: string;
  thresholdMax?: number | undefined;
  channel?: AlertChannelSpec | undefined;
  channels?: AlertChannelSpec[] | undefined;
  name?: string | undefined;
  message?: string | undefined;
  note?: string | undefined;
  numConsecutiveWindows?: number | undefined;
  scheduleOffsetMinutes?: number | undefined;
  scheduleStartAt?: string | undefined;
}
