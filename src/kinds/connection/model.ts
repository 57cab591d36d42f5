/** The parts of a Connection spec the definition reads (the schema in ./schema.ts is the full truth), and its live form. */
import * as z from 'zod';
import { objectId } from '../../core/wire.js';

export interface ConnectionSpecView {
  name: string;
  host: string;
  username: string;
  password?: string | undefined;
  hyperdxSettingPrefix?: string | undefined;
  isPrometheusEndpoint?: boolean | undefined;
}

/** A connection as the service returns it (selfhosted-api §4.3): never its password. */
export const connectionLive = z.looseObject({
  id: objectId,
  name: z.string(),
  host: z.string(),
  username: z.string(),
  hyperdxSettingPrefix: z.string().nullish(),
  isPrometheusEndpoint: z.boolean().nullish(),
});
export type ConnectionLive = z.output<typeof connectionLive>;
