/**
 * `obsync.yaml` (DESIGN §3). Strict objects: a typo in a key is an error, not a silent default.
 * String values may use `${env:NAME}` / `${file:PATH}` (resolved by the loader before this
 * schema runs). Credentials may be left out here and given by the environment instead.
 */
import * as z from 'zod';
import { policySettingsSchema } from '../policy/settings.js';
import { notificationSinkConfig } from './notification-sink.js';
import { targetName } from './target-name.js';
import { driftSetting, writeBackConfig } from './write-back-schema.js';
import { ignoreSetting, ignoreSuggestionsSetting, markSetting } from './field-rules-schema.js';
import { backtestSetting } from './backtest-schema.js';
import { stateConfig } from './state-schema.js';
import { targetConfig } from './target-schema.js';

const nonEmpty = z.string().min(1);

export { targetName };

export { notificationSinkConfig };

export const configSchema = z
  .strictObject({
    apiVersion: z.literal('obsync/v1').describe('Version of the format: always obsync/v1.'),
    kind: z.literal('Config').describe('Config: this is obsync.yaml.'),
    /** Manifest paths, relative to the config file. */
    manifests: z
      .array(nonEmpty)
      .min(1)
      .optional()
      .describe(
        'Files or directories of manifests read by every target, relative to this file (default: this directory, unless the targets ' +
          'list their own manifests).',
      ),
    /**
     * `${file:}` reads only below this file's directory unless allowed here: `true` (anywhere) or
     * a list of directories (relative to this file). Only a literal value counts.
     */
    allowFileOutside: z
      .union([z.boolean(), z.array(nonEmpty).min(1)])
      .optional()
      .describe(
        'Where ${file:} in manifests may read outside the directory of this file: true (anywhere) or a list of directories relative ' +
          'to it (default: nowhere else; --allow-file-outside). Only a literal value counts.',
      ),
    state: stateConfig.optional(),
    defaults: z
      .strictObject({
        target: targetName
          .optional()
          .describe('Target used without --target (default: every declared target; none declared: the embedded sandbox).'),
        schedule: nonEmpty.optional().describe('Cron schedule of obsync run, 5 fields, UTC (default "*/5 * * * *").'),
        prune: z
          .boolean()
          .optional()
          .describe('Delete owned objects that are no longer declared, with every guard (default false; --prune).'),
        concurrency: z.number().int().min(1).max(64).optional().describe('Requests in flight at once (1-64; default 4).'),
        maxDeletes: z.number().int().min(0).optional().describe('Most deletes one prune may make (default 10; --max-deletes).'),
        drift: driftSetting.optional(),
        writeBack: writeBackConfig.optional(),
        ignore: ignoreSetting.optional(),
        mark: markSetting.optional(),
        ignoreSuggestions: ignoreSuggestionsSetting.optional(),
        backtest: backtestSetting
          .optional()
          .describe(
            "Backtest created and updated alerts over the service's own data in every plan: a history such as 7d (the default of " +
              'plan and apply), false to turn it off, or {window, budget, perAlert}. Off in `obsync run` unless set here ' +
              '(--backtest, --no-backtest).',
          ),
      })
      .optional()
      .describe('Defaults of the command-line flags.'),
    targets: z
      .array(targetConfig)
      .optional()
      .describe(
        'The services to reconcile, each with its own manifests and vars if needed (none: the embedded sandbox). Only the targets a ' +
          'command uses have their settings and credentials resolved.',
      ),
    notifications: z
      .array(notificationSinkConfig)
      .max(20)
      .optional()
      .describe(
        'Where obsync run tells people of state changes (drift, failing, recovered…), each sink once per change (at most 20 sinks).',
      ),
    policy: policySettingsSchema.optional(),
    statusToken: z
      .string()
      .min(16, 'a status token has at least 16 characters')
      .regex(/^[\x21-\x7e]+$/, 'a status token is printable ASCII without spaces (it is sent as a Bearer token)')
      .optional()
      .meta({
        sensitive: true,
        description:
          'Bearer token the status page and /api/* of obsync run require, usually "${env:OBSYNC_STATUS_TOKEN}" (the variable also ' +
          'sets it); /livez, /readyz and /metrics stay open. At least 16 printable characters. Sensitive: never printed.',
      }),
  })
  .meta({
    id: 'Config',
    description: 'obsync.yaml: where the manifests are, where the state is kept, defaults of the flags, and the targets.',
  });

export type ObsyncConfig = z.infer<typeof configSchema>;
