/** `policy:` in obsync.yaml: the built-in rules' settings and severities, and where Policy manifests live. */
import * as z from 'zod';

/** The built-in rules, by stable id (docs/policy.md documents each with a failing and a passing example). */
export const BUILTIN_RULES = {
  // Off unless turned on: an alert may well notify a webhook made on the service and not managed here.
  'alert-channel': { severity: 'off', about: 'an alert notifies no webhook the manifests declare' },
  'alert-tile-type': { severity: 'error', about: 'a tile alert on a tile that is not a line, stacked_bar or number chart' },
  'unused-webhook': { severity: 'warning', about: 'a declared webhook that no alert notifies' },
  'required-tags': { severity: 'error', about: 'a dashboard or alert without the tags policy.requiredTags lists' },
  'name-pattern': { severity: 'error', about: 'a display name that does not match policy.namePatterns for its kind' },
  'protected-delete': { severity: 'error', about: 'a plan deletes an object on a target listed in policy.protectedTargets' },
  'noisy-alert': { severity: 'warning', about: "an alert's backtest fires in too many windows or too many episodes a day" },
  'dead-alert': { severity: 'warning', about: "an alert's backtest never fires over the window" },
  'empty-query': { severity: 'warning', about: "an alert's query matched no rows over the backtest window (it can never fire)" },
  'stale-source': { severity: 'warning', about: 'the source an alert reads has had no data for a while' },
  'group-cardinality': { severity: 'warning', about: "an alert's groupBy has more groups than policy.maxAlertGroups" },
} as const satisfies Record<string, { severity: 'error' | 'warning' | 'off'; about: string }>;

export type BuiltinRule = keyof typeof BUILTIN_RULES;
export const BUILTIN_RULE_IDS = Object.keys(BUILTIN_RULES) as BuiltinRule[];

const regex = z.string().refine(
  (text) => {
    try {
      new RegExp(text, 'u');
      return true;
    } catch {
      return false;
    }
  },
  { error: 'not a valid regular expression (JavaScript syntax, u flag)' },
);

export const policySettingsSchema = z
  .strictObject({
    paths: z
      .array(z.string().min(1))
      .optional()
      .describe('Files or folders of Policy manifests, relative to obsync.yaml (default: policies, when that folder exists).'),
    rules: z
      .partialRecord(z.enum(BUILTIN_RULE_IDS as [BuiltinRule, ...BuiltinRule[]]), z.enum(['error', 'warning', 'off']))
      .optional()
      .describe('Severity of a built-in rule (error blocks apply, warning reports) or off.'),
    requiredTags: z
      .array(z.string().min(1).max(32))
      .max(20)
      .optional()
      .describe('Tags every dashboard carries (a tag equal to it or starting with "<tag>:") and label keys every alert carries.'),
    namePatterns: z
      .partialRecord(z.enum(['Dashboard', 'Alert', 'Webhook', 'SavedSearch', 'Source', 'Connection', 'Pipe']), regex)
      .optional()
      .describe('Per kind, a regular expression the display name (spec.name, else metadata.name) must match.'),
    protectedTargets: z
      .array(z.string().min(1))
      .optional()
      .describe('Targets where a plan that deletes an owned object is refused (protected-delete).'),
    noisyAlert: z
      .strictObject({
        maxFiringShare: z.number().min(0).max(1).optional().describe('Largest share of windows an alert may fire in (default 0.2).'),
        maxEpisodesPerDay: z.number().min(0).optional().describe('Most firing episodes a day (default 5).'),
      })
      .optional()
      .describe('Limits of the noisy-alert rule over the backtest window.'),
    maxAlertGroups: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Most groups an alert's groupBy may have over the backtest window (group-cardinality; default 100)."),
  })
  .meta({ id: 'Policy', description: 'Rules checked by obsync lint and inside every plan and apply (docs/policy.md).' });

export type PolicySettings = z.output<typeof policySettingsSchema>;

export const DEFAULT_MAX_FIRING_SHARE = 0.2;
export const DEFAULT_MAX_EPISODES_PER_DAY = 5;
export const DEFAULT_MAX_ALERT_GROUPS = 100;

/** The severity a built-in rule reports at under these settings; null when turned off. */
export function severityOf(rule: BuiltinRule, settings: PolicySettings | undefined): 'error' | 'warning' | null {
  const set = settings?.rules?.[rule];
  const severity = set ?? BUILTIN_RULES[rule].severity;
  return severity === 'off' ? null : severity;
}
