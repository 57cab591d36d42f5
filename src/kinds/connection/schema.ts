/**
 * The Connection manifest spec (selfhosted-api §1.7, §3.6; self-hosted variant only): how the
 * service reaches a ClickHouse server. Sources and Raw SQL tiles name it. The password is
 * sensitive and write-only: the service never returns it.
 */
import * as z from 'zod';
import type { ConnectionSpecView } from './model.js';

const SECRET =
  'Sensitive and write-only: never printed, logged or exported; compared by a keyed fingerprint of what obsync last sent, and sent ' +
  'only when it changes. Use ${env:NAME} or ${file:PATH}.';

export const connectionSpecSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .describe('Name of the connection on the service. Sources and Raw SQL tiles name it; how an existing connection is adopted.'),
    host: z.string().min(1).describe('URL of the ClickHouse HTTP interface, e.g. http://clickhouse:8123.'),
    username: z.string().describe('ClickHouse user the service connects as.'),
    password: z
      .string()
      .optional()
      .meta({
        sensitive: true,
        description:
          `Password of that user. Left out, the password on the service is kept as it is (the service cannot be told to ` +
          `forget one). ${SECRET}`,
      }),
    hyperdxSettingPrefix: z
      .string()
      .regex(/^[a-z0-9_]+$/i, { error: 'a setting prefix is letters, digits and "_"' })
      .optional()
      .describe('Prefix of the custom ClickHouse settings the service sends with its queries (letters, digits and "_"). Left out: none.'),
    isPrometheusEndpoint: z
      .boolean()
      .optional()
      .describe('Whether the host is a Prometheus-compatible endpoint (for promql sources). Default: false.'),
  })
  .meta({
    id: 'ConnectionSpec',
    description: 'A connection to a ClickHouse server (self-hosted variant): sources and Raw SQL tiles run their queries on it.',
  });

export type ConnectionSpec = z.output<typeof connectionSpecSchema>;
// The definition (./definition.ts) reads specs through ConnectionSpecView: keep the schema assignable.
const _assignable: (s: ConnectionSpec) => ConnectionSpecView = (s) => s;
void _assignable;
