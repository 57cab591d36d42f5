import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret, scrubber } from '../core/scrub.js';
import { scrubbedLogRecord, scrubbedSpan } from './scrubbing.js';

let putBack: () => void;
beforeAll(() => {
  putBack = scrubber.setAside();
});
afterAll(() => putBack());

const secret = fc.stringMatching(/^[A-Za-z0-9_-]{16,40}$/);
/** Where a secret may sit in what is exported, in one of the forms servers echo. */
const placed = (s: string) =>
  fc.constantFrom(s, `Bearer ${s}`, encodeURIComponent(`k=${s}`), Buffer.from(`id:${s}`).toString('base64'), JSON.stringify({ token: s }));

function span(text: string): ReadableSpan {
  return {
    name: text,
    kind: 0,
    spanContext: () => ({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', traceFlags: 1 }),
    startTime: [0, 0],
    endTime: [0, 1],
    status: { code: 2, message: text },
    attributes: { a: text, list: [text], [text]: 1 },
    links: [{ context: { traceId: '0'.repeat(31) + '2', spanId: '0'.repeat(15) + '2', traceFlags: 1 }, attributes: { l: text } }],
    events: [{ name: text, time: [0, 0], attributes: { 'exception.message': text } }],
    duration: [0, 1],
    ended: true,
    resource: resourceFromAttributes({ r: text }),
    instrumentationScope: { name: 'obsync' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function record(text: string): ReadableLogRecord {
  return {
    hrTime: [0, 0],
    hrTimeObserved: [0, 0],
    severityText: text,
    body: { nested: [text] },
    eventName: text,
    resource: resourceFromAttributes({ r: text }),
    instrumentationScope: { name: 'obsync' },
    attributes: { a: text, m: { [text]: text } },
    droppedAttributesCount: 0,
  };
}

const visible = (x: ReadableSpan | ReadableLogRecord) => JSON.stringify({ ...x, resource: x.resource.attributes, spanContext: undefined });

describe('telemetry passes the scrubber everywhere a string can sit', () => {
  it('no registered secret survives in a span or a log record, in any field or echoed form', () => {
    fc.assert(
      fc.property(
        secret.chain((s) => fc.tuple(fc.constant(s), placed(s))),
        ([s, text]) => {
          registerSecret(s);
          const out = [visible(scrubbedSpan(span(text))), visible(scrubbedLogRecord(record(text)))].join('\n');
          expect(out.includes(s)).toBe(false);
          expect(out.includes(text)).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });
});
