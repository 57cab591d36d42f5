import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret, scrubber } from '../core/scrub.js';
import { BatchScrub, scrubbedLogRecord, scrubbedSpan } from './scrubbing.js';

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

describe('an export batch scrubs each distinct text once', () => {
  it('masks a secret wherever it recurs in a batch, and one registered after a batch in the next', () => {
    fc.assert(
      fc.property(
        secret.chain((s) => fc.tuple(fc.constant(s), placed(s))),
        ([s, text]) => {
          // A batch before the secret is known looks the text up (whatever it gave, it is not kept)…
          scrubbedSpan(span(text), new BatchScrub());
          registerSecret(s);
          // …and the next batch masks it in every span and record, however often it recurs.
          const next = new BatchScrub();
          const out = [span(text), span(`GET ${text}`), span(text)].map((x) => visible(scrubbedSpan(x, next)));
          out.push(...[record(text), record(text)].map((x) => visible(scrubbedLogRecord(x, next))));
          for (const o of out) expect(o.includes(s) || o.includes(text)).toBe(false);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('passes a span or a record with nothing to mask on as it is, without a copy', () => {
    registerSecret('a-secret-never-in-these-spans-31f7');
    const batch = new BatchScrub();
    const plain = span('GET /api/v2/dashboards/{id}');
    const log = record('run finished');
    expect(scrubbedSpan(plain, batch)).toBe(plain);
    expect(scrubbedLogRecord(log, batch)).toBe(log);
  });
});
