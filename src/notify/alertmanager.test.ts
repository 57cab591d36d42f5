import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alertmanagerRefuses } from '../../test/support/alertmanager-format.js';
import { NOTIFICATION_CLASSES, type ObsyncEvent } from '../events/vocabulary.js';
import { AlertmanagerAlerts } from './alertmanager.js';
import type { PreparedNotification } from './payload.js';

const event = (address: string): ObsyncEvent => ({
  seq: 1,
  time: '2026-11-26T12:00:00.000Z',
  target: 'prod',
  event: 'drift',
  address,
  action: 'update',
  reason: 'drifted',
  paths: ['threshold'],
});

// Any code point, lone surrogates and control characters included: what a hostile service may name things.
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)), maxLength: 30 });
const notification = fc.record({
  kind: fc.constantFrom(...NOTIFICATION_CLASSES),
  severity: fc.constantFrom('info', 'warning', 'error' as const),
  summary: anyText,
  target: fc.constantFrom('prod', 'staging-2'),
  items: fc.array(fc.record({ address: anyText, changes: fc.array(anyText, { maxLength: 3 }) }), { maxLength: 5 }),
  dropped: fc.nat({ max: 3 }),
  minutes: fc.integer({ min: -5, max: 5 }),
});

describe('the alertmanager sink: what Alertmanager takes on POST /api/v2/alerts', () => {
  it('every body it posts, for any notification and any text, passes Alertmanager’s schema and validation', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(notification, fc.constant('resend' as const)), { maxLength: 12 }), (steps) => {
        let clock = Date.parse('2026-11-26T12:00:00Z');
        const am = new AlertmanagerAlerts(() => clock);
        for (const step of steps) {
          clock += 30_000;
          if (step === 'resend') {
            const body = am.refresh();
            if (body) expect(alertmanagerRefuses(body)).toEqual([]);
            continue;
          }
          const n: PreparedNotification = {
            id: `n-${clock}`,
            kind: step.kind,
            target: step.target,
            // A notification's time may be a little before or after the clock that sends it.
            time: new Date(clock + step.minutes * 60_000).toISOString(),
            severity: step.severity,
            summary: step.summary,
            event: event('Alert/x'),
            ...(step.kind === 'failed' || step.kind === 'recovered' ? { since: new Date(clock - 3_600_000).toISOString() } : {}),
            count: step.items.length,
            items: step.items.map((i) => ({ event: event(i.address), changes: i.changes })),
          };
          const body = am.alerts(n, { version: '0.1.0', replica: 'host/1', dropped: step.dropped });
          expect(alertmanagerRefuses(body)).toEqual([]);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('the ported rules refuse what Alertmanager refuses', () => {
    expect(alertmanagerRefuses([{ labels: {}, startsAt: '2026-11-26T12:00:00Z' }])).toEqual(['alert 0: at least one label pair required']);
    expect(alertmanagerRefuses([{ labels: { 'a-b': 'x' }, startsAt: '2026-11-26T12:00:00Z' }])).toEqual([
      'alert 0: invalid label set: invalid name "a-b"',
    ]);
    expect(alertmanagerRefuses([{ labels: { a: 'x' }, startsAt: '2026-11-26T12:00:00Z', endsAt: '2026-11-26T11:00:00Z' }])).toEqual([
      'alert 0: start time must be before end time',
    ]);
    expect(alertmanagerRefuses([{ labels: { a: 'x' }, annotations: { s: 'bad \ud800' }, startsAt: '2026-11-26T12:00:00Z' }])).toHaveLength(
      1,
    );
    expect(alertmanagerRefuses({ labels: { a: 'x' } })).not.toEqual([]);
  });
});
