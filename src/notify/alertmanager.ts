/**
 * An `alertmanager` sink (issue 51 item 3): notifications posted as alerts to Alertmanager's own
 * API (`POST /api/v2/alerts`, a JSON array of postable alerts), so they take the routes,
 * receivers (PagerDuty, Opsgenie, Microsoft Teams, email…), grouping, silences and inhibitions
 * already configured there — the way Prometheus and Grafana hand alerts over. (Posting
 * Alertmanager's *webhook* payload instead would reach one receiver directly, without any of
 * that.) docs/notifications.md says how each class maps.
 *
 * Alertmanager expects a source to re-send what still fires and resolves what it stops hearing
 * of: a failing target is one alert (`ObsyncTargetFailing`), re-sent by `refresh()` while it
 * fails (ending four re-send periods ahead, as Prometheus does), resolved by `recovered`. Every
 * other class is a state change, told as an alert of its own (its notification id is a label)
 * that ends by itself after EVENT_ALERT_MS.
 */
import { printable } from '../core/printable.js';
import type { PayloadContext, PreparedNotification } from './payload.js';

/** A postable alert (Alertmanager's api/v2 `postableAlert`). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
}

/** How long an alert for a state change fires before Alertmanager resolves it. */
export const EVENT_ALERT_MS = 10 * 60_000;
/** How often a firing alert is sent again (Prometheus's default resend delay). */
export const RESEND_MS = 60_000;
/** Annotation text at most (Alertmanager keeps what it is given; receivers cut far less). */
const MAX_ANNOTATION = 4_000;

const ALERT_NAME: Record<PreparedNotification['kind'], string> = {
  drift: 'ObsyncDrift',
  healed: 'ObsyncHealed',
  failed: 'ObsyncTargetFailing',
  recovered: 'ObsyncTargetFailing',
  adopted: 'ObsyncAdopted',
  refused: 'ObsyncRefused',
  'non-convergent': 'ObsyncNonConvergent',
  leader: 'ObsyncLeadership',
  proposal: 'ObsyncProposal',
  'ignore-suggested': 'ObsyncIgnoreSuggested',
};
/** The severities Alertmanager routes by convention (kube-prometheus and most runbooks). */
const SEVERITY: Record<PreparedNotification['severity'], string> = { error: 'critical', warning: 'warning', info: 'info' };

export class AlertmanagerAlerts {
  /** The failing alert of each target, re-sent until it recovers. */
  readonly #firing = new Map<string, PostableAlert>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The alerts a notification posts: one. */
  alerts(n: PreparedNotification, ctx: PayloadContext): PostableAlert[] {
    const now = this.now();
    if (n.kind === 'failed' || n.kind === 'recovered') return [this.#failing(n, ctx, now)];
    const startsAt = Math.min(Date.parse(n.time), now);
    return [
      {
        labels: { alertname: ALERT_NAME[n.kind], target: n.target, severity: SEVERITY[n.severity], notification: n.id },
        annotations: annotations(n, ctx),
        startsAt: iso(startsAt),
        endsAt: iso(now + EVENT_ALERT_MS),
      },
    ];
  }

  /** How many alerts fire (failing targets). */
  get firing(): number {
    return this.#firing.size;
  }

  /** What still fires, ending four re-send periods from now; null when nothing does. */
  refresh(): PostableAlert[] | null {
    if (this.#firing.size === 0) return null;
    const endsAt = iso(this.now() + 4 * RESEND_MS);
    return [...this.#firing.values()].map((a) => ({ ...a, endsAt }));
  }

  #failing(n: PreparedNotification, ctx: PayloadContext, now: number): PostableAlert {
    const labels = { alertname: ALERT_NAME.failed, target: n.target, severity: SEVERITY.error };
    const startsAt = iso(Math.min(Date.parse(n.since ?? n.time), now));
    if (n.kind === 'recovered') {
      const firing = this.#firing.get(n.target);
      this.#firing.delete(n.target);
      // The same labels resolve it: an end now.
      return { labels, annotations: { ...(firing?.annotations ?? {}), ...annotations(n, ctx) }, startsAt, endsAt: iso(now) };
    }
    const alert = { labels, annotations: annotations(n, ctx), startsAt, endsAt: iso(now + 4 * RESEND_MS) };
    this.#firing.set(n.target, alert);
    return alert;
  }
}

function annotations(n: PreparedNotification, ctx: PayloadContext): Record<string, string> {
  const lines = n.items
    .filter((o) => o.changes.length > 0)
    .map((o) => `${'address' in o.event && typeof o.event.address === 'string' ? o.event.address : ''}: ${o.changes.join('; ')}`);
  return {
    summary: text(n.summary),
    ...(lines.length > 0 ? { description: text(lines.join('\n'), true) } : {}),
    ...(n.count > 0 ? { objects: String(n.count) } : {}),
    ...(ctx.dropped > 0 ? { dropped: String(ctx.dropped) } : {}),
    obsync_version: text(ctx.version),
    replica: text(ctx.replica),
  };
}

/** Annotation text: printable (no control characters, no lone surrogates: Alertmanager takes valid UTF-8 only), bounded. */
function text(value: string, multiline = false): string {
  const shown = multiline ? value.split('\n').map(printable).join('\n') : printable(value);
  if (shown.length <= MAX_ANNOTATION) return shown;
  // Never half of a surrogate pair at the cut.
  return `${shown.slice(0, MAX_ANNOTATION - 1).replace(/[\ud800-\udbff]$/, '')}…`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
