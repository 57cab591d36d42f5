/**
 * The daemon's status pages (issue 25), rendered on the server from the status document: `/`
 * lists every target (state, why and since when, role, last and next run, owned objects, recent
 * events), `/targets/NAME` adds the last plan in domain terms and the drift history. Plain HTML
 * and one stylesheet; readable without the script; every text escaped (object names and server
 * messages are hostile). `partial` renders only the inside of `<main>`, which the script swaps in.
 */
import type { Plan } from '../core/plan.js';
import { countsText, describeEvent, eventObject } from '../events/describe.js';
import type { Sharing, StatusDocument, TargetStatus } from '../events/status-model.js';
import type { ObsyncEvent } from '../events/vocabulary.js';
import { text, timeTag, urlPart } from './html.js';
import { renderPlanHtml } from './plan-html.js';
import { previewFigures, previewSection } from './status-previews.js';

export interface TargetDetail {
  status: TargetStatus;
  plan: { plan: Plan; at: Date } | null;
  /** Drift and healed events, newest first. */
  history: ObsyncEvent[];
  /** The target's kept events, newest first. */
  events: ObsyncEvent[];
}

export interface PageOptions {
  partial: boolean;
  now: Date;
}

const STATE_LABEL: Record<TargetStatus['state'], string> = {
  starting: 'Starting',
  'in-sync': 'In sync',
  drifted: 'Drifted',
  applying: 'Applying',
  planning: 'Checking',
  queued: 'Queued',
  failing: 'Failing',
  standby: 'Standby',
  stopping: 'Stopping',
};

const RECENT_ON_INDEX = 8;

/** Told once, in the page's headline: not again in each target's recent events. */
const IN_HEADLINE: ReadonlySet<ObsyncEvent['event']> = new Set(['replicas-disagree']);

/** A target's recent events on the index, less what a headline already tells: the disagreement, the failure it is failing with. */
function recentEvents(t: TargetStatus): ObsyncEvent[] {
  const told = (e: ObsyncEvent) => IN_HEADLINE.has(e.event) || (t.failing !== null && failureText(e) === t.failing.error);
  return t.recentEvents.filter((e) => !told(e)).slice(0, RECENT_ON_INDEX);
}

/** A failure event as the target's `failing.error` words it (src/events/derive.ts firstFailure, the daemon's thrown runs). */
function failureText(e: ObsyncEvent): string | undefined {
  if (e.event !== 'failed' && e.event !== 'target-unreachable' && e.event !== 'refused') return undefined;
  const address = 'address' in e ? e.address : undefined;
  return address ? `${address}: ${e.message}` : e.message;
}

export function renderStatusPage(doc: StatusDocument, opts: PageOptions): string {
  const failing = doc.targets.filter((t) => t.state === 'failing').length;
  const disagreements = doc.replica.sharing?.disagreements ?? [];
  const problem = !doc.ready || disagreements.length > 0;
  const headline = [
    `${doc.targets.length} target(s): ${doc.ready ? 'all ready' : `not all ready${failing ? ` (${failing} failing)` : ''}`}.`,
    ...(disagreements.length > 0 ? [`Replicas disagree: ${disagreements.join('; ')}.`] : []),
  ];
  const overview = `<p class="overview ${problem ? 'problem' : 'ok'}">${headline.map(text).join('<br>')}</p>`;
  const main = [
    overview,
    ...(doc.replica.sharing ? [sharingSection(doc.replica.id, doc.replica.sharing)] : []),
    ...(doc.targets.length === 0
      ? ['<p>No targets.</p>']
      : doc.targets.map((t) => targetSection(t, opts.now, { link: true, events: recentEvents(t) }))),
  ].join('\n');
  if (opts.partial) return main;
  const title = `obsync: ${doc.targets.length} target(s)${failing ? `, ${failing} failing` : ''}`;
  return layout(title, '<h1>obsync status</h1>', `obsync ${doc.version}, replica ${doc.replica.id}.`, main, undefined);
}

export function renderTargetPage(detail: TargetDetail, doc: Pick<StatusDocument, 'version' | 'replica'>, opts: PageOptions): string {
  const t = detail.status;
  const plan = detail.plan
    ? `<p>Planned ${timeTag(detail.plan.at.toISOString(), opts.now)}.</p>\n${renderPlanHtml(detail.plan.plan)}`
    : '<p>No run has planned yet.</p>';
  const main = [
    targetSection(t, opts.now, { link: false, events: [] }),
    `<section aria-labelledby="last-plan"><h2 id="last-plan">Last plan</h2>\n${plan}</section>`,
    previewSection(t.previews),
    `<section aria-labelledby="drift-history"><h2 id="drift-history">Drift history</h2>\n${
      detail.history.length > 0
        ? eventTable(detail.history, `Drift history of ${t.name}`, opts.now)
        : '<p>No drift seen since the daemon started.</p>'
    }</section>`,
    `<section aria-labelledby="events"><h2 id="events">Events</h2>\n${
      detail.events.length > 0 ? eventTable(detail.events, `Events of ${t.name}, newest first`, opts.now) : '<p>No events yet.</p>'
    }</section>`,
  ].join('\n');
  if (opts.partial) return main;
  const summary = `obsync ${doc.version}, replica ${doc.replica.id}.`;
  return layout(
    `obsync: ${t.name}: ${STATE_LABEL[t.state]}`,
    `<p><a href="/">All targets</a></p><h1>Target ${text(t.name)}</h1>`,
    summary,
    main,
    t.name,
  );
}

function layout(title: string, heading: string, summary: string, main: string, target: string | undefined): string {
  return (
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(title)}</title>
<link rel="stylesheet" href="/static/status.css">
<script src="/static/status.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header>
${heading}
<p>${text(summary)}</p>
<p id="live" role="status">Reload the page for new data.</p>
</header>
<main id="main" tabindex="-1"${target === undefined ? '' : ` data-target="${text(target)}"`}>
${main}
</main>
<footer><p>The same data as JSON: <a href="/api/status">/api/status</a>, <a href="/api/events">/api/events</a>. ` +
    `Probes: <a href="/readyz">/readyz</a>, <a href="/metrics">/metrics</a>.</p></footer>
</body>
</html>
`
  );
}

/** Replicas sharing the targets (PostgreSQL state): who is live and what each leads. */
function sharingSection(me: string, sharing: Sharing): string {
  const rows = sharing.replicas.map(
    (r) =>
      `<tr${r.late ? ' class="late"' : ''}><th scope="row">${text(r.id)}${r.id === me ? ' (this replica)' : ''}</th>` +
      `<td>${r.leads.length} of ${r.targets}</td><td>${text(
        r.leads.join(', ') || '—',
      )}</td><td>${Math.round(r.heartbeatAgeMs / 1000)} s ago` +
      `${r.late ? ' <strong class="problem">late</strong>' : ''}</td><td>${text(r.version)}</td></tr>`,
  );
  return (
    `<section aria-labelledby="replicas"><h2 id="replicas">Replicas</h2><p>${text(
      `${sharing.replicas.length} live replica(s) share the targets; ${sharing.assigned.length} assigned to this one.`,
    )}</p><table><caption class="visually-hidden">Live replicas</caption>` +
    `<thead><tr><th scope="col">Replica</th><th scope="col">Leads</th><th scope="col">Targets</th>` +
    `<th scope="col">Heartbeat</th><th scope="col">Version</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`
  );
}

const DRIFT_MODE: Record<NonNullable<TargetStatus['drift']>, string> = {
  revert: 'apply (heals drift)',
  report: 'apply; drift is reported, not put back (drift: report)',
  propose: 'apply; drift is proposed to Git, not put back (drift: propose)',
};

function targetSection(t: TargetStatus, now: Date, opts: { link: boolean; events: ObsyncEvent[] }): string {
  const id = `target-${urlPart(t.name)}`;
  const name = opts.link ? `<a href="/targets/${urlPart(t.name)}">${text(t.name)}</a>` : text(t.name);
  const facts: [string, string][] = [
    ['Service', service(t)],
    ['Mode', t.mode === 'plan' ? 'plan (reports drift only)' : DRIFT_MODE[t.drift ?? 'revert']],
    ['Role', `${text(t.role.kind)}: ${text(t.role.detail)}`],
    // A failing target's failure is its headline: told once.
    ['Ready', t.failing ? 'no: failing (above)' : `${t.ready ? 'yes' : 'no'}: ${text(t.readyReason)}`],
    ['Last run', t.lastRun ? lastRun(t.lastRun, t.mode, now, { error: t.failing === null }) : 'none yet'],
    ['Next run', nextRun(t, now)],
    ['Owned objects', owned(t.owned)],
    ['Manifests', t.manifests.valid ? 'valid' : `invalid: ${t.manifests.errors} error(s) (running on the last good state)`],
    ...(t.proposal === undefined ? [] : [['Proposal', proposal(t.proposal, now)] as [string, string]]),
    ...(t.previews && opts.link ? [['Previews', previewFigures(t.previews, 'thumbnail')] as [string, string]] : []),
    ...(t.ignoreSuggestions && t.ignoreSuggestions.length > 0
      ? [['Ignore rules suggested', ignoreSuggestions(t.ignoreSuggestions)] as [string, string]]
      : []),
  ];
  const events =
    opts.events.length > 0
      ? `<h3>Recent events</h3>\n${eventTable(opts.events, `Recent events of ${t.name}`, now, { hiddenCaption: true })}`
      : '';
  return `<section class="target state-${t.state}" aria-labelledby="${id}">
<h2 id="${id}">${name} <span class="badge">${STATE_LABEL[t.state]}</span></h2>
<p class="reason">${headlineOf(t, now)}</p>
<dl class="facts">
${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('\n')}
</dl>
${events}
</section>`;
}

/** Why the target is as it is, since when: a failing one's failure from its fields (the error once, every time as a time tag). */
function headlineOf(t: TargetStatus, now: Date): string {
  const f = t.failing;
  if (!f) return `Since ${timeTag(t.since, now)}: ${text(t.reason)}`;
  return `Failing since ${timeTag(f.since, now)} (${f.runs === 1 ? '1 failed run' : `${f.runs} failed runs`}): ${text(f.error)}`;
}

/** drift: propose — the open proposal: a link to the request (only an http(s) URL is a link), its age, its objects. */
function proposal(p: TargetStatus['proposal'], now: Date): string {
  if (!p) return 'none open (changes made on the service are proposed to Git)';
  const where =
    p.url && /^https?:\/\//i.test(p.url)
      ? `<a href="${text(p.url)}" rel="noreferrer">${text(p.url)}</a>`
      : `branch <code>${text(p.branch)}</code>`;
  const since = p.openedAt ? `, open since ${timeTag(p.openedAt, now)}` : '';
  const shown = p.objects.slice(0, 10).map((o) => `<code>${text(o)}</code>`);
  if (p.objects.length > shown.length) shown.push(`and ${p.objects.length - shown.length} more`);
  const conflicts = p.conflicts > 0 ? ` <strong class="problem">${p.conflicts} conflict(s) to decide</strong>` : '';
  return `${where}${since}: ${shown.join(', ') || 'no objects'} (not put back while open)${conflicts}`;
}

/** Fields that keep changing on the service: each rule with the manifest line that would add it (obsync never does). */
function ignoreSuggestions(list: NonNullable<TargetStatus['ignoreSuggestions']>): string {
  const items = list
    .slice(0, 10)
    .map(
      (s) =>
        `<code>${text(s.path)}</code> of <code>${text(s.address)}</code> (${s.times} runs in ${s.withinDays} ` +
        `days): add <code>${text(`metadata.ignore: [${JSON.stringify(s.path)}]`)}</code>`,
    );
  if (list.length > items.length) items.push(`and ${list.length - items.length} more (/api/status)`);
  return `${items.join('; ')} — or the target's ignore in obsync.yaml`;
}

/** Where the target points: the API's address and, hosted, the service. */
function service(t: TargetStatus): string {
  const { baseUrl, serviceId } = t.endpoint;
  if (t.embedded) return `${text(t.variant)}: ${text(baseUrl)} (a simulator)`;
  return `${text(t.variant)} at <code>${text(baseUrl)}</code>${serviceId === undefined ? '' : `, service <code>${text(serviceId)}</code>`}`;
}

function nextRun(t: TargetStatus, now: Date): string {
  if (t.nextRun) return `${timeTag(t.nextRun.at, now)} (${t.nextRun.why === 'retry' ? 'retry after a failure' : 'schedule'})`;
  if (t.role.kind === 'standby') return 'when this replica leads the target (another replica runs it now)';
  if (t.role.kind === 'electing') return 'when this replica leads the target (the election is not decided yet)';
  return 'none planned';
}

/** Plan mode: what the run found to do (`1 to update`); a run that failed before planning has no counts. */
function lastRun(run: NonNullable<TargetStatus['lastRun']>, mode: TargetStatus['mode'], now: Date, show: { error: boolean }): string {
  const changes = run.planned ? countsText(run.counts, mode) : 'failed before planning';
  const error = show.error && run.error ? `<br><span class="muted">${text(run.error)}</span>` : '';
  return (
    `${timeTag(run.finishedAt, now)}: ${text(run.result)} in ${(run.durationMs / 1000).toFixed(1)} s ` +
    `(${text(run.trigger.join(', '))}); ${changes}${error}`
  );
}

function owned(byKind: Record<string, number>): string {
  const entries = Object.entries(byKind).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? 'none' : entries.map(([kind, n]) => `${n} ${text(kind)}`).join(', ');
}

function eventTable(events: readonly ObsyncEvent[], caption: string, now: Date, opts: { hiddenCaption?: boolean } = {}): string {
  const rows = events.map(
    (e) =>
      `<tr class="event-${text(e.event)}"><td class="when">${timeTag(e.time, now)}</td><td class="event">${text(e.event)}</td><td>${
        eventObject(e) ? `<code>${text(eventObject(e) ?? '')}</code>` : ''
      }</td><td>${text(describeEvent(e))}</td></tr>`,
  );
  return (
    `<table><caption${opts.hiddenCaption ? ' class="visually-hidden"' : ''}>${text(caption)}</caption><thead><tr><th ` +
    `scope="col">Time</th><th scope="col">Event</th><th scope="col">Object</th><th scope="col">What ` +
    `happened</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}
