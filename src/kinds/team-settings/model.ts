/** The parts of a TeamSettings spec the definition reads, and its live form (composed by src/remote/team.ts). */
import * as z from 'zod';
import { objectId } from '../../core/wire.js';

export interface TeamSettingsSpecView {
  defaultUserRole: string;
}

/** The team's settings: its id and the name of its default role (null: none set). */
export const teamSettingsLive = z.object({ id: objectId, defaultUserRole: z.string().nullable() });
export type TeamSettingsLive = z.output<typeof teamSettingsLive>;
