/**
 * The built-in rules over manifests alone (offline, `obsync lint`): each reads the desired
 * objects and reports findings at their manifest's file:line. Waivers are applied afterwards
 * (./waivers.ts), the same for every rule.
 */
import type { DesiredResource } from '../core/resource.js';
import { alertsOnUnalertableTiles } from './alert-tile-rule.js';
import { findingAt, type Finding, type Severity } from './model.js';
import { severityOf, type BuiltinRule, type PolicySettings } from './settings.js';

type Ref = string | { id: string };
interface ChannelSpec {
  channel?: { webhook: Ref };
  channels?: readonly { webhook: Ref }[];
}

/** Every built-in manifest rule's findings (turned-off rules report nothing). */
export function manifestFindings(resources: readonly DesiredResource[], settings: PolicySettings | undefined): Finding[] {
  const out: Finding[] = [];
  const report = (rule: BuiltinRule, check: (severity: Severity) => Finding[]) => {
    const severity = severityOf(rule, settings);
    if (severity) out.push(...check(severity));
  };
  const webhooks = resources.filter((r) => r.kind === 'Webhook');
  const alerts = resources.filter((r) => r.kind === 'Alert');
  report('alert-channel', (s) => alertsWithoutDeclaredChannel(alerts, webhooks, s));
  report('alert-tile-type', (s) => alertsOnUnalertableTiles(resources, s));
  report('unused-webhook', (s) => unusedWebhooks(alerts, webhooks, s));
  report('required-tags', (s) => missingTags(resources, settings?.requiredTags ?? [], s));
  report('name-pattern', (s) => namesOffPattern(resources, settings?.namePatterns ?? {}, s));
  return out;
}

function channelNames(alert: DesiredResource): string[] {
  const spec = alert.spec as ChannelSpec;
  const channels = spec.channels ?? (spec.channel ? [spec.channel] : []);
  return channels.flatMap((c) => (typeof c.webhook === 'string' ? [c.webhook] : []));
}

/** The names an alert's channel may use for a webhook manifest: its metadata.name and its name on the service. */
function webhookNames(webhook: DesiredResource): string[] {
  const display = (webhook.spec as { name?: unknown }).name;
  return typeof display === 'string' ? [webhook.name, display] : [webhook.name];
}

function alertsWithoutDeclaredChannel(alerts: readonly DesiredResource[], webhooks: readonly DesiredResource[], s: Severity): Finding[] {
  const declared = new Set(webhooks.flatMap(webhookNames));
  return alerts
    .filter((a) => !channelNames(a).some((n) => declared.has(n)))
    .map((a) => {
      const names = channelNames(a);
      const why = names.length === 0 ? 'its channels name webhooks by {id} only' : `no Webhook manifest declares ${names.join(', ')}`;
      return findingAt(a, 'alert-channel', s, `${a.address} notifies no webhook declared in the manifests (${why})`);
    });
}

function unusedWebhooks(alerts: readonly DesiredResource[], webhooks: readonly DesiredResource[], s: Severity): Finding[] {
  const used = new Set(alerts.flatMap(channelNames));
  return webhooks
    .filter((w) => !webhookNames(w).some((n) => used.has(n)))
    .map((w) => findingAt(w, 'unused-webhook', s, `${w.address} is notified by no alert: remove it or name it in an alert's channel`));
}

function missingTags(resources: readonly DesiredResource[], required: readonly string[], s: Severity): Finding[] {
  if (required.length === 0) return [];
  const out: Finding[] = [];
  for (const res of resources) {
    const carried = carriedTags(res);
    if (carried === null) continue;
    const missing = required.filter((t) => !carried.some((c) => c === t || c.startsWith(`${t}:`)));
    if (missing.length > 0) {
      const where = res.kind === 'Dashboard' ? 'spec.tags' : 'metadata.labels';
      out.push(findingAt(res, 'required-tags', s, `${res.address} lacks the required tag(s) ${missing.join(', ')} in ${where}`));
    }
  }
  return out;
}

/** A dashboard's tags; an alert's label keys (alerts have no tags on the service); null for other kinds. */
function carriedTags(res: DesiredResource): readonly string[] | null {
  if (res.kind === 'Dashboard') return (res.spec as { tags?: string[] }).tags ?? [];
  if (res.kind === 'Alert') return Object.keys(res.labels);
  return null;
}

function namesOffPattern(
  resources: readonly DesiredResource[],
  patterns: Readonly<Partial<Record<string, string>>>,
  s: Severity,
): Finding[] {
  const compiled = new Map(Object.entries(patterns).flatMap(([kind, p]) => (p === undefined ? [] : [[kind, new RegExp(p, 'u')] as const])));
  const out: Finding[] = [];
  for (const res of resources) {
    const pattern = compiled.get(res.kind);
    if (!pattern) continue;
    const display = (res.spec as { name?: unknown }).name;
    const name = typeof display === 'string' ? display : res.name;
    if (!pattern.test(name))
      out.push(
        findingAt(
          res,
          'name-pattern',
          s,
          `${res.address}: the name '${name}' does not match ${pattern.source} (policy.namePatterns.${res.kind})`,
        ),
      );
  }
  return out;
}
