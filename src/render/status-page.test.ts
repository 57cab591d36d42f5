import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StatusDocument, TargetStatus } from '../events/status-model.js';
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
    mode: 'apply',
    role: { kind: 'leader', detail: "this replica leads target 'prod'" },
    state: 'failing',
    reason: 'failing since 2026-11-26T12:00:00.000Z (10 min, 3 failed runs): GET /x failed: no response (ECONNREFUSED)',
    since: '2026-11-26T12:00:00.000Z',
    ready: false,
    readyReason: 'failing since …',
    lastRun: {
      startedAt: '2026-11-26T12:09:00.000Z',
      finishedAt: '2026-11-26T12:09:01.000Z',
      result: 'failure',
      durationMs: 1000,
      trigger: ['retry'],
      counts: { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 },
      requests: 4,
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
      'Since <time datetime="2026-11-26T12:00:00.000Z">2026-11-26 12:00:00 UTC</time> <span class="ago">(10 min ago)</span>',
    );
    expect(html).toContain('3 Dashboard');
    expect(html).toContain('(retry after a failure)');
    expect(html).toContain('<link rel="stylesheet" href="/static/status.css">');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/<script>|style=/);
  });

  it('partial: only what goes inside <main>', () => {
    const part = renderStatusPage(doc([target()]), { partial: true, now });
    expect(part).not.toContain('<html');
    expect(part.startsWith('<p class="overview">1 target(s): not all ready (1 failing).</p>\n<section class="target state-failing"')).toBe(
      true,
    );
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

  it('escapes every text from the service and the manifests: no markup, no hidden characters', () => {
    const markup =
      /<(?!\/?(?:section|h[123]|a|span|p|dl|dt|dd|table|caption|thead|tbody|tr|th|td|code|br|time|ul|li|div|strong|details|summary|pre)\b)/;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (hostile) => {
        const t = target({ reason: hostile, role: { kind: 'leader', detail: hostile }, owned: { [hostile]: 1 } });
        const e = event({ event: 'failed', code: hostile, message: hostile, address: hostile });
        const html = renderStatusPage(doc([{ ...t, recentEvents: [e] }]), { partial: true, now });
        expect(html).not.toMatch(markup);
        // eslint-disable-next-line no-control-regex -- the point
        expect(html).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
        expect(html).toContain(text(hostile));
      }),
      { numRuns: 300 },
    );
    const html = renderStatusPage(doc([target({ reason: '<script>alert(1)</script> "x" \u202eevil' })]), { partial: true, now });
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &quot;x&quot; \\u202eevil');
  });
});
