import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { ObsyncEvent } from '../events/vocabulary.js';
import { genericPayload, type PreparedNotification } from './payload.js';

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
const drift: PreparedNotification = {
  id: '5f0c3e43-8f55-4a57-9d0c-0b3f54b8d5d1',
  kind: 'drift',
  target: 'prod',
  time: event.time,
  severity: 'warning',
  summary: 'Alert/checkout-p99-high was changed on prod and was put back: threshold',
  event,
  count: 1,
  items: [{ event, changes: ['threshold 1500 → 900'] }],
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
      id: drift.id,
      kind: 'drift',
      dropped: 2,
      event: { seq: 7, address: 'Alert/checkout-p99-high' },
      count: 1,
      objects: [{ event: { address: 'Alert/checkout-p99-high' }, changes: ['threshold 1500 → 900'] }],
    });
    // A notification about no object (a target failing) has neither.
    const failing = genericPayload({ ...drift, kind: 'failed', count: 0, items: [] }, ctx);
    expect(validate(failing), JSON.stringify(validate.errors)).toBe(true);
    expect(failing).not.toHaveProperty('objects');
  });
});
