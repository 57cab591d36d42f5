import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ObsyncEvent } from '../events/vocabulary.js';
import { genericPayload, slackPayload, slackText } from './payload.js';
import type { Notification } from './policy.js';

const event: ObsyncEvent = {
  seq: 7,
  time: '2026-11-26T12:00:00.000Z',
  target: 'prod',
  event: 'drift',
  address: 'Alert/checkout-p99-high',
  action: 'update',
  reason: 'drifted',
  paths: ['threshold'],
};
const drift: Notification = {
  kind: 'drift',
  target: 'prod',
  time: event.time,
  severity: 'warning',
  summary: 'Alert/checkout-p99-high changed on the service: threshold',
  event,
};
const ctx = { version: '0.1.0', replica: 'host/1', dropped: 0 };

describe('notification payloads', () => {
  it('generic: validates against docs/schema/notification.schema.json', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync('docs/schema/notification.schema.json', 'utf8')) as object);
    const doc = genericPayload(drift, { ...ctx, dropped: 2 });
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc).toMatchObject({
      schema: 'obsync.notification/v1',
      kind: 'drift',
      dropped: 2,
      event: { seq: 7, address: 'Alert/checkout-p99-high' },
    });
  });

  it('slack: a text and blocks, the title and the summary', () => {
    const p = slackPayload(drift, ctx);
    expect(p.text).toBe(':warning: Drift on prod: Alert/checkout-p99-high changed on the service: threshold');
    expect(p.blocks[0]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: ':warning: *Drift on prod*\nAlert/checkout-p99-high changed on the service: threshold' },
    });
    expect(JSON.stringify(p.blocks[1])).toContain('obsync 0.1.0 · host/1');
  });

  it('slack: hostile text makes no mention, link or markup, and control characters are shown escaped', () => {
    const hostile = slackPayload({ ...drift, summary: 'name <!channel> <https://evil.example|click> & \u001b[2J \u202e' }, ctx);
    expect(hostile.text).toContain('&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp; \\u001b[2J \\u202e');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = slackText(s);
        expect(out).not.toMatch(/[<>]/);
        expect(out).not.toMatch(/&(?!amp;|lt;|gt;)/);
        // eslint-disable-next-line no-control-regex -- the point
        expect(out).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      }),
    );
  });
});
