import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Sharing, StatusDocument, TargetStatus } from '../events/status-model.js';
import { statusSchema } from '../events/status-model.js';
import type { ObsyncEvent } from '../events/vocabulary.js';
import { text } from './html.js';
import { renderStatusPage, renderTargetPage } from './status-page.js';

const now = new Date('2026-11-26T12:10:00Z');

function target(over: Partial<TargetStatus> = {}): TargetStatus {
  return {
    name: 'prod',
    variant: 'hosted',
    embedded: false,
    endpoint: { baseUrl: 'https://api.example.com', organizationId: 'org-1', serviceId: 'svc-9' },
    mode: 'apply',
    role: { kind: 'leader', detail: "this replica leads target 'prod'" },
    state: 'failing',
    reason: 'failing since 2026-11-26T12:00:00.000Z (10 min, 3 failed runs): GET /x failed: no response (ECONNREFUSED)',
    since: '2026-11-26T12:00:00.000Z',
    ready: false,
    readyReason: 'failing since 2026-11-26T12:00:00.000Z (10 min, 3 failed runs): GET /x failed: no response (ECONNREFUSED)',
    failing: { since: '2026-11-26T12:00:00.000Z', runs: 3, error: 'GET /x failed: no response (ECONNREFUSED)' },
    lastRun: {
      startedAt: '2026-11-26T12:09:00.000Z',
      finishedAt: '2026-11-26T12:09:01.000Z',
      result: 'failure',
      durationMs: 1000,
      trigger: ['retry'],
      counts: { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 },
      requests: 4,
      planned: false,
      error: 'GET /x failed: no response (ECONNREFUSED)',
    },
    nextRun: { at: '2026-11-26T12:10:08.000Z', why: 'retry' },
    owned: { Dashboard: 3, Alert: 2 },
    manifests: { valid: true, errors: 0 },
    recentEvents: [],
    ...over,
  };
}

const doc = (targets: TargetStatus[]): StatusDocument => ({
  version: '0.1.0',
  generatedAt: now.toISOString(),
  ready: false,
  replica: { id: 'host/1' },
  targets,
});

const event = (over: Partial<ObsyncEvent> & Pick<ObsyncEvent, 'event'>): ObsyncEvent =>
  ({ seq: 1, time: '2026-11-26T12:05:00.000Z', target: 'prod', ...over }) as ObsyncEvent;

describe('status pages', () => {
  it('show each target with its state, why and since when, role, last and next run, owned objects', () => {
    const html = renderStatusPage(doc([target()]), { partial: false, now });
    expect(statusSchema.safeParse(doc([target()])).success).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<a href="/targets/prod">prod</a> <span class="badge">Failing</span>');
    expect(html).toContain(
      'Failing since <time datetime="2026-11-26T12:00:00.000Z">2026-11-26 12:00:00 UTC</time> <span class="ago">(10 min ago)</span>',
    );
    expect(html).toContain('3 Dashboard');
    expect(html).toContain('(retry after a failure)');
    expect(html).toContain('<link rel="stylesheet" href="/static/status.css">');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/<script>|style=/);
  });

  it('a suggested ignore rule: the field, the object, how often, and the manifest line (escaped); none: no row', () => {
    const suggestion = {
      address: 'Dashboard/<b>x</b>',
      path: 'tiles[*].x',
      times: 3,
      withinDays: 30,
      lines: { manifest: 'metadata:\n  ignore: ["tiles[*].x"]', config: 'targets: []' },
      since: '2026-11-20T12:00:00.000Z',
      last: '2026-11-26T12:00:00.000Z',
    };
    const t = target({ ignoreSuggestions: [suggestion] });
    expect(statusSchema.safeParse(doc([t])).success).toBe(true);
    const html = renderStatusPage(doc([t]), { partial: false, now });
    expect(html).toContain(
      '<dt>Ignore rules suggested</dt><dd><code>tiles[*].x</code> of ' +
        '<code>Dashboard/&lt;b&gt;x&lt;/b&gt;</code> (3 runs in 30 days): add <code>metadata.ignore: ' +
        '[&quot;tiles[*].x&quot;]</code>',
    );
    expect(renderStatusPage(doc([target({ ignoreSuggestions: [] })]), { partial: false, now })).not.toContain('Ignore rules suggested');
  });

  it('partial: only what goes inside <main>', () => {
    const part = renderStatusPage(doc([target()]), { partial: true, now });
    expect(part).not.toContain('<html');
    expect(
      part.startsWith('<p class="overview problem">1 target(s): not all ready (1 failing).</p>\n<section class="target state-failing"'),
    ).toBe(true);
  });

  it("a target's page: the last plan, the drift history and its events", () => {
    const drift = event({
      event: 'drift',
      address: 'Alert/x',
      action: 'update',
      reason: 'drifted',
      paths: ['threshold'],
    });
    const html = renderTargetPage({ status: target({ state: 'in-sync' }), plan: null, history: [drift], events: [drift] }, doc([]), {
      partial: false,
      now,
    });
    expect(html).toContain('<h1>Target prod</h1>');
    expect(html).toContain('No run has planned yet.');
    expect(html).toContain('<code>Alert/x</code></td><td>changed on the service: threshold</td>');
    expect(html).toContain('data-target="prod"');
  });

  it("the last plan's pictures: thumbnails on the index, full width on the target's page, each linked with its names escaped", () => {
    const previews: TargetStatus['previews'] = [
      { address: 'Dashboard/checkout', title: '<script>alert(1)</script>', url: '/targets/prod/previews/dashboard-checkout.svg' },
      { address: 'Alert/x', title: 'X', skipped: 'over the 12 pictures kept of a plan' },
    ];
    const index = renderStatusPage(doc([target({ previews })]), { partial: true, now });
    const img =
      '<a href="/targets/prod/previews/dashboard-checkout.svg"><img src="/targets/prod/previews/dashboard-checkout.svg" ' +
      'alt="Dashboard/checkout: &lt;script&gt;alert(1)&lt;/script&gt;" loading="lazy"></a>';
    expect(index).toContain(`<div class="previews thumbnail"><figure>${img}`);
    expect(index).not.toContain('<script>');
    expect(index).toContain('no picture: over the 12 pictures kept of a plan');
    const page = renderTargetPage({ status: target({ previews }), plan: null, history: [], events: [] }, doc([]), { partial: true, now });
    expect(page).toContain(`<h2 id="previews">Previews of the last plan</h2>`);
    expect(page).toContain(`<div class="previews full"><figure>${img}`);
    expect(renderTargetPage({ status: target(), plan: null, history: [], events: [] }, doc([]), { partial: true, now })).not.toContain(
      'previews',
    );
  });

  it('escapes every text from the service and the manifests: no markup, no hidden characters', () => {
    const tags = 'section|h[123]|a|span|p|dl|dt|dd|table|caption|thead|tbody|tr|th|td|code|br|time|ul|li|div|strong|details|summary|pre';
    const markup = new RegExp(`<(?!\\/?(?:${tags}|figure|figcaption|img)\\b)`);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (hostile) => {
        const t = target({
          reason: hostile,
          role: { kind: 'leader', detail: hostile },
          owned: { [hostile]: 1 },
          endpoint: { baseUrl: hostile, serviceId: hostile },
          failing: { since: '2026-11-26T12:00:00.000Z', runs: 1, error: hostile },
          previews: [
            { address: hostile, title: hostile, url: '/targets/prod/previews/dashboard-x.svg' },
            { address: hostile, title: hostile, skipped: hostile },
          ],
        });
        const e = event({ event: 'failed', code: hostile, message: hostile, address: hostile });
        const html = renderStatusPage(doc([{ ...t, recentEvents: [e] }]), { partial: true, now });
        expect(html).not.toMatch(markup);
        // eslint-disable-next-line no-control-regex -- the point
        expect(html).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
        expect(html).toContain(text(hostile));
      }),
      { numRuns: 300 },
    );
    const html = renderStatusPage(doc([target({ state: 'drifted', failing: null, reason: '<script>alert(1)</script> "x" \u202eevil' })]), {
      partial: true,
      now,
    });
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &quot;x&quot; \\u202eevil');
  });
});

/** What a reader sees: the text without markup (a `<time>`'s machine form is an attribute, not shown). */
const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/ ([,.;:)])/g, '$1');
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

const planned = (over: Partial<NonNullable<TargetStatus['lastRun']>> = {}): NonNullable<TargetStatus['lastRun']> => ({
  startedAt: '2026-11-26T12:09:00.000Z',
  finishedAt: '2026-11-26T12:09:01.000Z',
  result: 'success',
  durationMs: 1000,
  trigger: ['schedule'],
  counts: { create: 0, update: 1, delete: 0, unchanged: 3, adopted: 0, failed: 0 },
  requests: 4,
  planned: true,
  ...over,
});

const finished = (last: NonNullable<TargetStatus['lastRun']>, mode: 'apply' | 'plan') =>
  event({
    event: 'run-finished',
    mode,
    result: last.result,
    durationMs: last.durationMs,
    counts: last.counts,
    requests: 4,
    planned: last.planned,
  });

describe('the status page tells the truth at a glance', () => {
  const healthy = (over: Partial<TargetStatus>) =>
    target({
      state: 'in-sync',
      reason: 'every object is as declared',
      ready: true,
      readyReason: 'last successful run 60 s ago',
      failing: null,
      lastRun: planned(),
      nextRun: { at: '2026-11-26T12:15:07.000Z', why: 'schedule' },
      ...over,
    });

  it('a plan-mode run tells what it found to do (1 to update), an apply-mode run what it did (1 updated)', () => {
    for (const [mode, said, never] of [
      ['plan', '1 to update, 3 unchanged', 'updated'],
      ['apply', '1 updated, 3 unchanged', 'to update'],
    ] as const) {
      const last = planned();
      const page = visible(
        renderStatusPage(doc([healthy({ mode, lastRun: last, recentEvents: [finished(last, mode)] })]), { partial: true, now }),
      );
      // Once in the last run, once in its run-finished event.
      expect(occurrences(page, said)).toBe(2);
      expect(page).not.toContain(never);
    }
  });

  it('a run that failed before planning shows no counts, in the last run and in its event', () => {
    const last = planned({
      result: 'failure',
      planned: false,
      counts: { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 },
    });
    const page = visible(
      renderStatusPage(doc([target({ lastRun: last, recentEvents: [finished(last, 'apply')] })]), { partial: true, now }),
    );
    expect(occurrences(page, 'failed before planning')).toBe(2);
    expect(page).not.toMatch(/\b0 (created|updated|deleted|unchanged|to )/);
  });

  it(
    'a failing target tells its error once (not in the ready line, the last run, nor the events that ' +
      'carry it), every time in one format',
    () => {
      const error = 'GET /x failed: no response (ECONNREFUSED)';
      const last = planned({ result: 'failure', planned: false, error });
      const events = [
        event({ event: 'target-unreachable', code: 'E', status: 0, message: error }),
        finished(last, 'apply'),
        event({ event: 'target-recovered', downSince: '2026-11-26T11:00:00.000Z' }),
      ];
      const page = visible(renderStatusPage(doc([target({ lastRun: last, recentEvents: events })]), { partial: true, now }));
      expect(occurrences(page, error)).toBe(1);
      expect(page).toContain('Failing since 2026-11-26 12:00:00 UTC (10 min ago) (3 failed runs): GET /x failed');
      expect(page).toContain('service answers again (unreachable since 2026-11-26 11:00:00 UTC)');
      // ISO instants stay in the machine-readable attributes.
      expect(page).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
      // The target's own page keeps every event.
      const detail = visible(renderTargetPage({ status: target(), plan: null, history: [], events }, doc([]), { partial: true, now }));
      expect(occurrences(detail, error)).toBe(2);
    },
  );

  it('each target shows where it points: the host, and for a hosted one the service', () => {
    const hosted = visible(renderStatusPage(doc([healthy({})]), { partial: true, now }));
    expect(hosted).toContain('Service hosted at https://api.example.com, service svc-9');
    const selfHosted = healthy({ name: 'staging', variant: 'self-hosted', endpoint: { baseUrl: 'http://obs-api.internal:8000' } });
    expect(visible(renderStatusPage(doc([selfHosted]), { partial: true, now }))).toContain(
      'Service self-hosted at http://obs-api.internal:8000 Mode',
    );
  });

  it('the next run: its time (the schedule with its jitter, from the status), or when a standby replica would run it', () => {
    const scheduled = healthy({ nextRun: { at: '2026-11-26T12:15:07.000Z', why: 'schedule' } });
    expect(visible(renderStatusPage(doc([scheduled]), { partial: true, now }))).toContain(
      'Next run 2026-11-26 12:15:07 UTC (in 5 min) (schedule)',
    );
    const standby = healthy({ state: 'standby', role: { kind: 'standby', detail: 'led by replica r2' }, nextRun: null });
    expect(visible(renderStatusPage(doc([standby]), { partial: true, now }))).toContain(
      'Next run when this replica leads the target (another replica runs it now)',
    );
    expect(visible(renderStatusPage(doc([healthy({ nextRun: null })]), { partial: true, now }))).toContain('Next run none planned');
  });

  const sharing = (over: Partial<Sharing> = {}): Sharing => ({
    replicas: [
      { id: 'r1', leads: ['prod'], targets: 1, heartbeatAgeMs: 1_000, late: false, version: '0.1.0' },
      { id: 'r2', leads: [], targets: 1, heartbeatAgeMs: 130_000, late: true, version: '0.1.0' },
    ],
    assigned: ['prod'],
    disagreements: [],
    heartbeatAt: '2026-11-26T12:09:59.000Z',
    ...over,
  });
  const shared = (s: Sharing, targets: TargetStatus[]): StatusDocument => ({
    ...doc(targets),
    ready: true,
    replica: { id: 'r1', sharing: s },
  });

  it('a replica whose heartbeat is late is marked late', () => {
    const html = renderStatusPage(shared(sharing(), [healthy({})]), { partial: true, now });
    expect(html).toContain('<tr class="late"><th scope="row">r2</th>');
    expect(visible(html)).toContain('130 s ago late');
    expect(html).not.toContain('<tr class="late"><th scope="row">r1');
  });

  it('a disagreement between replicas is stated once, in the headline, which it colours', () => {
    const detail = 'replica r2 runs obsync 1.1.0, replica r1 runs 0.1.0';
    const told = event({ event: 'replicas-disagree', replicas: ['r2'], details: [detail] });
    const agreeing = renderStatusPage(shared(sharing(), [healthy({})]), { partial: true, now });
    expect(agreeing).toMatch(/^<p class="overview ok">1 target\(s\): all ready\.<\/p>/);
    const html = renderStatusPage(
      shared(sharing({ disagreements: [detail] }), [healthy({ recentEvents: [told] }), healthy({ name: 'b', recentEvents: [told] })]),
      {
        partial: true,
        now,
      },
    );
    expect(html).toMatch(/^<p class="overview problem">2 target\(s\): all ready\.<br>Replicas disagree: replica r2 runs obsync 1\.1\.0/);
    expect(occurrences(visible(html), detail)).toBe(1);
  });
});
