/** obsync.yaml's `targets[]`: one schema per variant (self-hosted, hosted, sandbox), their shared fields and credentials. */
import * as z from 'zod';
import { HTTP_URL, urlSetting } from './url-setting.js';
import { targetName } from './target-name.js';
import { driftSetting, writeBackConfig } from './write-back-schema.js';
import { ignoreSetting, ignoreSuggestionsSetting, markSetting } from './field-rules-schema.js';

const nonEmpty = z.string().min(1);

const rateLimit = z
  .strictObject({
    requests: z.number().int().positive().describe('Requests allowed per window.'),
    perSeconds: z.number().positive().describe('Length of the window, in seconds.'),
  })
  .meta({ id: 'RateLimit', description: 'Client-side pacing: at most `requests` per `perSeconds`.' });

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
      "This target's own files or directories of manifests, relative to this file, read in addition to the top-level manifests (a " +
        'base shared by every target, plus an overlay per target). PATH arguments on the command line replace both.',
    ),
  /** Values of `${var:NAME}` in this target's manifests. */
  vars: z
    .record(z.string().regex(VAR_NAME, 'a var name is letters, digits and "_", not starting with a digit'), varValue)
    .optional()
    .describe(
      'Values of ${var:NAME} in the manifests this target reads (thresholds, webhook and source names per environment). May use ' +
        '${env:} and ${file:}; resolved only when the target is used.',
    ),
  /** How an existing object a manifest matches by natural key is taken over (issue 18). */
  adopt: z
    .enum(['by-name', 'explicit'])
    .optional()
    .describe(
      "How obsync takes over an existing object whose natural key (a dashboard's name…) a manifest matches: by-name (the default) " +
        'adopts it, shown loudly in every plan; explicit refuses, naming its id, until `obsync import Kind/name ID` or `obsync ' +
        'export --adopt` binds it.',
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
      'The longest wait a server may ask for (Retry-After, a rate-limit reset), in seconds; a longer one fails the request instead ' +
        '(default 60).',
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
      'The largest response body obsync reads, in MiB (default 32); a larger answer fails its request while it streams in. Mind the ' +
        'memory limit of the container when raising it.',
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
        'Directory of its data, relative to this file (default: embedded/<target name> in the state directory, e.g. ' +
          '.obsync/state/embedded/sandbox).',
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
