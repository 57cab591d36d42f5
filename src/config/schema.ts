/**
 * `obsync.yaml` (DESIGN §3). Strict objects: a typo in a key is an error, not a silent default.
 * String values may use `${env:NAME}` / `${file:PATH}` (resolved by the loader before this
 * schema runs). Credentials may be left out here and given by the environment instead.
 */
import * as z from 'zod';
import { durationMs, MAX_BACKTEST_MS } from '../core/duration.js';
import { policySettingsSchema } from '../policy/settings.js';
import { notificationSinkConfig } from './notification-sink.js';
import { STATE_SCHEMA_NAME, STATE_SCHEMA_RULE } from './state-schema-name.js';
import { HTTP_URL, POSTGRES_URL, urlSetting } from './url-setting.js';
import { targetName } from './target-name.js';
import { driftSetting, writeBackConfig } from './write-back-schema.js';
import { ignoreSetting, ignoreSuggestionsSetting, markSetting } from './field-rules-schema.js';

const nonEmpty = z.string().min(1);

export { targetName };

const rateLimit = z
  .strictObject({
    requests: z.number().int().positive().describe('Requests allowed per window.'),
    perSeconds: z.number().positive().describe('Length of the window, in seconds.'),
  })
  .meta({ id: 'RateLimit', description: 'Client-side pacing: at most `requests` per `perSeconds`.' });

const backtestWindow = z
  .string()
  .refine((text) => {
    const ms = durationMs(text, 'mhd');
    return ms !== null && ms <= MAX_BACKTEST_MS;
  }, 'a history like 1d, 12h or 7d (minutes, hours or days; at most 90d)')
  .describe('How far back: 1d, 12h, 7d… (at most 90d).');

const backtestSetting = z
  .union([
    z.boolean().describe('true: the default history (7d); false: no backtests.'),
    backtestWindow,
    z
      .strictObject({
        window: backtestWindow.optional().describe('How far back (default 7d).'),
        budget: z.number().int().min(0).max(1000).optional().describe('Series requests one plan may make for backtests (default 20).'),
        perAlert: z
          .number()
          .int()
          .min(1)
          .max(100)
          .optional()
          .describe(
            'Series requests one alert may make; a longer history is shortened to fit (default 10: a week of 5-minute windows before and after a change of query).',
          ),
        episodeBudget: z
          .strictObject({
            episodes: z.number().int().min(0).max(10_000).describe('Episodes (runs of firing windows) allowed per period.'),
            per: z
              .string()
              .refine((text) => durationMs(text, 'mhd') !== null, 'a period like 1d, 12h or 7d (minutes, hours or days)')
              .describe('The period: 1d, 7d…'),
          })
          .optional()
          .describe(
            'How often an alert may page: an alert whose backtest has more episodes (scaled to the history) gets the nearest threshold that would have stayed within it, computed from the same series, shown as a suggestion and never applied. E.g. {episodes: 3, per: 7d}.',
          ),
      })
      .describe('The history and the request limits.'),
  ])
  .meta({
    id: 'Backtest',
    description: "Backtests of alerts over the service's own data (the self-hosted chart series API; not available on hosted targets).",
  });

export type BacktestSetting = z.infer<typeof backtestSetting>;

/** `${var:NAME}` names: letters, digits and "_", not starting with a digit. */
export const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const varValue = z.union([
  z.string().describe('Text, substituted as it is.'),
  z.number().describe('A number: in a number field it stays a number.'),
  z.boolean().describe('true or false: in a boolean field it stays a boolean.'),
]);

const common = {
  name: targetName,
  /** This target's own manifest paths, added to the top-level list (an overlay: base + own). */
  manifests: z
    .array(nonEmpty)
    .min(1)
    .optional()
    .describe(
      "This target's own files or directories of manifests, relative to this file, read in addition to the top-level manifests (a base shared by every target, plus an overlay per target). PATH arguments on the command line replace both.",
    ),
  /** Values of `${var:NAME}` in this target's manifests. */
  vars: z
    .record(z.string().regex(VAR_NAME, 'a var name is letters, digits and "_", not starting with a digit'), varValue)
    .optional()
    .describe(
      'Values of ${var:NAME} in the manifests this target reads (thresholds, webhook and source names per environment). May use ${env:} and ${file:}; resolved only when the target is used.',
    ),
  /** How an existing object a manifest matches by natural key is taken over (issue 18). */
  adopt: z
    .enum(['by-name', 'explicit'])
    .optional()
    .describe(
      "How obsync takes over an existing object whose natural key (a dashboard's name…) a manifest matches: by-name (the default) adopts it, shown loudly in every plan; explicit refuses, naming its id, until `obsync import Kind/name ID` or `obsync export --adopt` binds it.",
    ),
  /** Requests in flight at once (default: defaults.concurrency). */
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe('Requests in flight at once (1-64; default: defaults.concurrency, else 4).'),
  /** What obsync run does with drift (issue 41); default: as --mode says. */
  drift: driftSetting.optional(),
  /** Where drift: propose sends the live state (laid over defaults.writeBack). */
  writeBack: writeBackConfig.optional(),
  /** Fields the UI owns on this target, per kind (added to defaults.ignore). */
  ignore: ignoreSetting.optional(),
  /** The mark put on this target's managed objects (replaces defaults.mark). */
  mark: markSetting.optional(),
  /** When obsync run suggests an ignore rule for a field that keeps drifting (replaces defaults.ignoreSuggestions). */
  ignoreSuggestions: ignoreSuggestionsSetting.optional(),
  /** Per-request deadline. */
  timeoutSeconds: z
    .number()
    .positive()
    .max(600)
    .optional()
    .describe('Deadline of each request, in seconds (at most 600; default 30; --timeout overrides it).'),
  /** Client-side pacing; defaults to the variant's published limit. */
  rateLimit: rateLimit
    .optional()
    .describe("Client-side pacing (default: the variant's published limit: hosted 10 per 10 s, self-hosted 100 per 60 s)."),
  retries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Retries of an idempotent request after a 5xx or a connection error (0-10; default 3).'),
  /** The longest wait a server may ask for (Retry-After, rate-limit reset) before the request fails instead. */
  maxWaitSeconds: z
    .number()
    .positive()
    .max(3600)
    .optional()
    .describe(
      'The longest wait a server may ask for (Retry-After, a rate-limit reset), in seconds; a longer one fails the request instead (default 60).',
    ),
  /** A request's total time over all its attempts and waits. */
  deadlineSeconds: z
    .number()
    .positive()
    .max(3600)
    .optional()
    .describe("A request's total time over all its attempts, back-offs and waits, in seconds (default 300)."),
  /** The largest response body read; a larger one fails the request (every input is bounded). */
  maxResponseMiB: z
    .number()
    .positive()
    .max(1024)
    .optional()
    .describe(
      'The largest response body obsync reads, in MiB (default 32); a larger answer fails its request while it streams in. Mind the memory limit of the container when raising it.',
    ),
};
const baseUrl = (example: string) =>
  urlSetting('the base URL', HTTP_URL, example).describe(`Base URL of the API, e.g. ${example} (OBSYNC_BASE_URL overrides it).`);
/** A credential: `${env:OBSYNC_*}` credentials may be used here, and its value is never printed. */
const credential = (what: string, env: string) =>
  nonEmpty.optional().meta({
    sensitive: true,
    description: `${what}. Prefer the environment: ${env} (or ${env}_FILE), or "\${env:NAME}" here. Sensitive: never printed or logged.`,
  });
const keyId = credential('API key id', 'OBSYNC_KEY_ID');

export const selfHostedTargetConfig = z
  .strictObject({
    ...common,
    variant: z.literal('self-hosted').describe('self-hosted: the open-source API server (Bearer personal API key).'),
    baseUrl: baseUrl('http://obs-api.internal:8000'),
    credentials: z
      .strictObject({ apiKey: credential('Personal API access key', 'OBSYNC_API_KEY') })
      .optional()
      .describe('The API key, when not given by the environment.'),
  })
  .meta({ id: 'SelfHostedTarget', description: 'A self-hosted API server.' });

export const hostedTargetConfig = z
  .strictObject({
    ...common,
    variant: z.literal('hosted').describe('hosted: the cloud API (HTTP Basic key id and secret); also manages pipes and API keys.'),
    baseUrl: baseUrl('https://api.example.com'),
    organizationId: z.uuid().describe('Organization id (a UUID; OBSYNC_ORG_ID overrides it).'),
    serviceId: z.uuid().describe('Service id (a UUID; OBSYNC_SERVICE_ID overrides it).'),
    credentials: z
      .strictObject({ keyId, keySecret: credential('API key secret', 'OBSYNC_KEY_SECRET') })
      .optional()
      .describe('The API key, when not given by the environment.'),
    paths: z
      .strictObject({
        observability: nonEmpty.optional().describe('Path segment of the observability API (default clickstack).'),
        pipes: nonEmpty.optional().describe('Path segment of the pipes API (default clickpipes).'),
      })
      .optional()
      .describe('Path segments of the API, when they differ from the defaults.'),
  })
  .meta({ id: 'HostedTarget', description: 'A service of the hosted cloud API.' });

/** The embedded sandbox: an in-process simulator, data under `data` (default `<state directory>/embedded/<name>`). */
export const sandboxTargetConfig = z
  .strictObject({
    ...common,
    variant: z.literal('sandbox').describe('sandbox: the embedded simulator, in-process; no account needed.'),
    /** Which API the embedded sandbox speaks; hosted (the default) also manages pipes. */
    api: z
      .enum(['hosted', 'self-hosted'])
      .optional()
      .describe('Which API the sandbox speaks: hosted (the default; also pipes) or self-hosted.'),
    data: nonEmpty
      .optional()
      .describe(
        'Directory of its data, relative to this file (default: embedded/<target name> in the state directory, e.g. .obsync/state/embedded/sandbox).',
      ),
  })
  .meta({
    id: 'SandboxTarget',
    description: 'The embedded sandbox: an in-process simulator of the service whose data persists in a directory.',
  });

/** The parts of a target that shape its manifest tree (validate resolves them for every target). */
export const targetTreeSchema = z.object({ manifests: common.manifests, vars: common.vars });

export const targetConfig = z
  .discriminatedUnion('variant', [selfHostedTargetConfig, hostedTargetConfig, sandboxTargetConfig])
  .meta({ id: 'Target', description: 'A service obsync reconciles; by variant.' });
export type TargetConfig = z.infer<typeof targetConfig>;

/** How long a writer lease lives without renewal (a dead writer is replaced after at most this). */
const leaseSeconds = z
  .number()
  .min(2)
  .max(600)
  .optional()
  .describe(
    'How long a writer lease lives without renewal, in seconds (2-600, default 30): a writer that died is replaced after at most this.',
  );

/** The default: a directory (relative to obsync.yaml). */
export const fileStateConfig = z
  .strictObject({
    backend: z.literal('file').default('file').describe('file (the default): a directory next to obsync.yaml.'),
    path: nonEmpty
      .default('.obsync/state')
      .describe(
        'Directory of the state (inventory, lease, backups), relative to this file (default .obsync/state; OBSYNC_STATE_DIR overrides it). Keep it out of Git.',
      ),
    leaseSeconds,
  })
  .meta({ id: 'FileState', description: 'State in a local directory (the default).' });

/**
 * PostgreSQL, for CI runners and daemon replicas: `url` usually `${env:OBSYNC_STATE_URL}` (the
 * variable also overrides it). `path` is the file state that `obsync state migrate` copies from or to.
 */
export const postgresStateConfig = z
  .strictObject({
    backend: z.literal('postgres').describe('postgres: a PostgreSQL database, shared by CI runs and daemon replicas.'),
    url: urlSetting('the state URL', POSTGRES_URL, '"${env:OBSYNC_STATE_URL}"').meta({
      sensitive: true,
      description:
        'Connection URL, usually "${env:OBSYNC_STATE_URL}" (the variable, or OBSYNC_STATE_URL_FILE, also overrides it). Sensitive: its password is never printed.',
    }),
    schema: z
      .string()
      .regex(STATE_SCHEMA_NAME, STATE_SCHEMA_RULE)
      .default('obsync')
      .describe('PostgreSQL schema of the tables, created and migrated on first use (default obsync; OBSYNC_STATE_SCHEMA overrides it).'),
    leaseSeconds,
    path: nonEmpty.optional().describe('The file state directory that `obsync state migrate` copies from or to (default .obsync/state).'),
  })
  .meta({
    id: 'PostgresState',
    description: 'State in PostgreSQL: inventory, pending creates, fingerprint key, backups and leases in one database.',
  });

export const stateConfig = z
  .discriminatedUnion('backend', [postgresStateConfig, fileStateConfig])
  .meta({ id: 'State', description: 'Where obsync keeps what it owns (the inventory), its writer lease and backups.' });
export type StateConfig = z.infer<typeof stateConfig>;

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
        'Files or directories of manifests read by every target, relative to this file (default: this directory, unless the targets list their own manifests).',
      ),
    /**
     * `${file:}` reads only below this file's directory unless allowed here: `true` (anywhere) or
     * a list of directories (relative to this file). Only a literal value counts.
     */
    allowFileOutside: z
      .union([z.boolean(), z.array(nonEmpty).min(1)])
      .optional()
      .describe(
        'Where ${file:} in manifests may read outside the directory of this file: true (anywhere) or a list of directories relative to it (default: nowhere else; --allow-file-outside). Only a literal value counts.',
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
            "Backtest created and updated alerts over the service's own data in every plan: a history such as 7d (the default of plan and apply), false to turn it off, or {window, budget, perAlert}. Off in `obsync run` unless set here (--backtest, --no-backtest).",
          ),
      })
      .optional()
      .describe('Defaults of the command-line flags.'),
    targets: z
      .array(targetConfig)
      .optional()
      .describe(
        'The services to reconcile, each with its own manifests and vars if needed (none: the embedded sandbox). Only the targets a command uses have their settings and credentials resolved.',
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
          'Bearer token the status page and /api/* of obsync run require, usually "${env:OBSYNC_STATUS_TOKEN}" (the variable also sets it); /livez, /readyz and /metrics stay open. At least 16 printable characters. Sensitive: never printed.',
      }),
  })
  .meta({
    id: 'Config',
    description: 'obsync.yaml: where the manifests are, where the state is kept, defaults of the flags, and the targets.',
  });
export type ObsyncConfig = z.infer<typeof configSchema>;
