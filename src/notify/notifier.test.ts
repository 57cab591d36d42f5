import { PassThrough } from 'node:stream';
import { type CloudEvent, HTTP } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import type { ObsyncEvent } from '../events/vocabulary.js';
import type { ChangesLookup } from './changes.js';
import { createLogger } from '../log/logger.js';
import { Notifier, type SinkMessage, type SinkPoster, type SinkSpec } from './notifier.js';

let seq = 0;
const failingRun = (target = 'prod'): ObsyncEvent => ({
  seq: ++seq,
  time: '2026-11-26T12:00:00.000Z',
  target,
  event: 'run-finished',
  mode: 'apply',
  result: 'failure',
  durationMs: 5,
  counts: { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 },
  requests: 1,
  planned: false,
  error: 'no response',
});
const adopted = (address: string, target = 'prod'): ObsyncEvent => ({
  seq: ++seq,
  time: '2026-11-26T12:00:00.000Z',
  target,
  event: 'adopted',
  address,
  id: 'x',
  paths: [],
});

/** A poster answering from a script of statuses (a thrown code for no response); records every message. */
function poster(script: (number | 'ECONNRESET')[]): SinkPoster & { bodies: unknown[]; messages: SinkMessage[] } {
  const bodies: unknown[] = [];
  const messages: SinkMessage[] = [];
  return {
    bodies,
    messages,
    post(message) {
      bodies.push(message.body);
      messages.push(message);
      const next = script.shift() ?? 200;
      if (next === 'ECONNRESET') return Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
      return Promise.resolve({ status: next });
    },
    close: () => Promise.resolve(),
  };
}

function notifier(sinks: Omit<SinkSpec, 'index'>[], now = () => 0, changes?: ChangesLookup) {
  const out = new PassThrough();
  let log = '';
  out.on('data', (d: Buffer) => (log += d.toString()));
  const counted: string[] = [];
  const sleeps: number[] = [];
  const n = new Notifier(
    sinks.map((s, index) => ({ ...s, index })),
    {
      logger: createLogger({ format: 'json', level: 'info', stream: out }),
      version: '0.1.0',
      replica: 'h/1',
      count: (sink, type, result) => counted.push(`${sink} ${type} ${result}`),
      now,
      resendTimer: false,
      ...(changes ? { changes } : {}),
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    },
  );
  return { n, counted, sleeps, log: () => log };
}

describe('Notifier', () => {
  it('retries a 5xx, a 429 and no response with back-off, then counts it sent', async () => {
    const p = poster([503, 'ECONNRESET', 429, 200]);
    const { n, counted, sleeps } = notifier([{ type: 'generic', poster: p }]);
    n.observe(failingRun());
    await n.idle();
    expect(p.bodies).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    expect(counted).toEqual(['notifications[0] generic sent']);
  });

  it('gives up after the attempts, and at once on a 4xx: logged and counted without the URL, never thrown', async () => {
    const p = poster([500, 500, 500, 500, 404]);
    const { n, counted, log } = notifier([{ type: 'slack', poster: p }]);
    n.observe(failingRun('a'));
    n.observe(failingRun('b'));
    await n.idle();
    expect(p.bodies).toHaveLength(5);
    expect(counted).toEqual(['notifications[0] slack failed', 'notifications[0] slack failed']);
    expect(log()).toMatch(/"sink":"notifications\[0\]".*"outcome":"HTTP 500".*"msg":"notification failed"/);
    expect(log()).toMatch(/"outcome":"HTTP 404".*"msg":"notification failed"/);
  });

  it('never makes the caller wait: observe returns while the sink has not answered', async () => {
    let answer: (v: { status: number }) => void = () => undefined;
    const slow: SinkPoster = { post: () => new Promise((r) => (answer = r)), close: () => Promise.resolve() };
    const { n, counted } = notifier([{ type: 'generic', poster: slow }]);
    n.observe(failingRun());
    expect(counted).toEqual([]);
    answer({ status: 204 });
    await n.idle();
    expect(counted).toEqual(['notifications[0] generic sent']);
  });

  it('rate-limits per sink: the rest are dropped, counted, and announced by the next one delivered', async () => {
    let clock = 0;
    const p = poster([]);
    const { n, counted } = notifier([{ type: 'generic', poster: p, maxPerMinute: 2 }], () => clock);
    for (const a of ['Dashboard/a', 'Dashboard/b', 'Dashboard/c', 'Dashboard/d']) n.observe(adopted(a));
    await n.idle();
    expect(counted.filter((c) => c.endsWith('dropped'))).toHaveLength(2);
    expect(p.bodies).toHaveLength(2);
    clock = 61_000;
    n.observe(adopted('Dashboard/e'));
    await n.idle();
    expect(p.bodies).toHaveLength(3);
    expect(counted.filter((c) => c.endsWith('sent'))).toHaveLength(3);
    // The drops are announced once, by the next notification delivered.
    expect(p.bodies.map((b) => (b as { dropped: number }).dropped)).toEqual([0, 2, 0]);
  });

  it('sends each sink only the classes and targets it asked for', async () => {
    const all = poster([]);
    const onlyFailed = poster([]);
    const onlyStaging = poster([]);
    const { n } = notifier([
      { type: 'generic', poster: all },
      { type: 'generic', poster: onlyFailed, events: ['failed'] },
      { type: 'generic', poster: onlyStaging, targets: ['staging'] },
    ]);
    n.observe(adopted('Dashboard/a'));
    n.observe(failingRun());
    await n.idle();
    expect(all.bodies.map((b) => (b as { kind: string }).kind)).toEqual(['adopted', 'failed']);
    expect(onlyFailed.bodies.map((b) => (b as { kind: string }).kind)).toEqual(['failed']);
    expect(onlyStaging.bodies).toEqual([]);
  });
});

describe('Notifier: what a run found, in each sink’s form', () => {
  const at = (target: string, body: Record<string, unknown>) =>
    ({ seq: ++seq, time: '2026-11-26T12:00:00.000Z', target, ...body }) as ObsyncEvent;
  const runOf = (target: string, inner: ObsyncEvent[], result: 'success' | 'failure' = 'success'): ObsyncEvent[] => [
    at(target, { event: 'run-started', mode: 'apply', trigger: ['manual'] }),
    ...inner,
    at(target, {
      event: 'run-finished',
      mode: 'apply',
      result,
      durationMs: 5,
      counts: { create: 0, update: 0, delete: 0, unchanged: 0, adopted: 0, failed: 0 },
      requests: 1,
      planned: result === 'success',
      ...(result === 'failure' ? { error: 'GET /api/v2/dashboards failed: HTTP 503' } : {}),
    }),
  ];
  const drifted = (target: string, address: string) => [
    at(target, { event: 'drift', address, action: 'update', reason: 'drifted', paths: ['threshold'] }),
    at(target, { event: 'healed', address, id: '1', paths: ['threshold'] }),
  ];
  const changes: ChangesLookup = (_target, addresses) => new Map(addresses.map((a) => [a, [`threshold 1500 → 900 (${a})`]]));

  it('one notification per class with every object and its field changes; one id for every sink and every retry', async () => {
    const a = poster([503, 200]);
    const b = poster([]);
    const { n } = notifier(
      [
        { type: 'generic', poster: a },
        { type: 'generic', poster: b, events: ['drift'] },
      ],
      () => 0,
      changes,
    );
    for (const e of runOf('prod', [...drifted('prod', 'Alert/x'), ...drifted('prod', 'Alert/y')])) n.observe(e);
    await n.idle();
    const docs = a.bodies as { id: string; kind: string; count: number; objects: { changes: string[] }[] }[];
    expect(docs.map((d) => `${d.kind} ${d.count}`)).toEqual(['drift 2', 'drift 2', 'healed 2']);
    expect(docs[0]?.objects.map((o) => o.changes)).toEqual([['threshold 1500 → 900 (Alert/x)'], ['threshold 1500 → 900 (Alert/y)']]);
    // The retry is the same message; the other sink gets the same id.
    expect(a.messages[0]?.id).toBe(a.messages[1]?.id);
    expect((b.bodies[0] as { id: string }).id).toBe(a.messages[0]?.id);
    expect(new Set(a.messages.map((m) => m.id)).size).toBe(2);
  });

  it('cloudevents: a CloudEvent 1.0 in structured mode whose data is the document, valid for the CloudEvents SDK', async () => {
    const p = poster([]);
    const { n } = notifier([{ type: 'generic', format: 'cloudevents', poster: p }], () => 0, changes);
    for (const e of runOf('prod', drifted('prod', 'Alert/x'))) n.observe(e);
    await n.idle();
    expect(p.messages).toHaveLength(2);
    for (const m of p.messages) {
      expect(m.contentType).toBe('application/cloudevents+json; charset=utf-8');
      const event = HTTP.toEvent({ headers: { 'content-type': m.contentType }, body: JSON.stringify(m.body) }) as CloudEvent<unknown>;
      expect(event.validate()).toBe(true);
      expect(event).toMatchObject({ specversion: '1.0', id: m.id, source: '/obsync/targets/prod', subject: 'Alert/x' });
      expect((event.data as { id: string }).id).toBe(m.id);
    }
    expect(p.messages.map((m) => (m.body as { type: string }).type)).toEqual([
      'com.github.obsync.notification.drift',
      'com.github.obsync.notification.healed',
    ]);
  });

  it('alertmanager: a failing target fires one alert, sent again while it fails, resolved by its recovery', async () => {
    let clock = Date.parse('2026-11-26T12:00:00Z');
    const p = poster([]);
    const { n } = notifier([{ type: 'alertmanager', poster: p }], () => clock);
    const alerts = () => p.bodies.at(-1) as { labels: Record<string, string>; startsAt: string; endsAt: string }[];
    for (const e of runOf('prod', [], 'failure')) n.observe(e);
    await n.idle();
    expect(alerts()).toEqual([
      expect.objectContaining({
        labels: { alertname: 'ObsyncTargetFailing', target: 'prod', severity: 'critical' },
        endsAt: '2026-11-26T12:04:00.000Z',
      }),
    ]);
    clock += 60_000;
    n.resend();
    await n.idle();
    expect(p.bodies).toHaveLength(2);
    expect(alerts()[0]?.endsAt).toBe('2026-11-26T12:05:00.000Z');
    for (const e of runOf('prod', [])) n.observe(e);
    await n.idle();
    expect(alerts()).toEqual([
      expect.objectContaining({ labels: { alertname: 'ObsyncTargetFailing', target: 'prod', severity: 'critical' } }),
    ]);
    expect(Date.parse(alerts()[0]?.endsAt ?? '')).toBe(clock);
    // Nothing fires any more: nothing to send again.
    n.resend();
    await n.idle();
    expect(p.bodies).toHaveLength(3);
  });

  it('alertmanager: each state change is an alert of its own that ends by itself', async () => {
    const clock = Date.parse('2026-11-26T12:00:00Z');
    const p = poster([]);
    const { n } = notifier([{ type: 'alertmanager', poster: p }], () => clock, changes);
    for (const e of runOf('prod', drifted('prod', 'Alert/x'))) n.observe(e);
    await n.idle();
    const [drift, healed] = p.bodies as { labels: Record<string, string>; annotations: Record<string, string>; endsAt: string }[][];
    expect(drift?.[0]?.labels).toMatchObject({ alertname: 'ObsyncDrift', target: 'prod', severity: 'warning' });
    expect(healed?.[0]?.labels).toMatchObject({ alertname: 'ObsyncHealed', severity: 'info' });
    expect(drift?.[0]?.labels.notification).not.toBe(healed?.[0]?.labels.notification);
    expect(drift?.[0]?.annotations).toMatchObject({ description: 'Alert/x: threshold 1500 → 900 (Alert/x)', objects: '1' });
    expect(drift?.[0]?.endsAt).toBe('2026-11-26T12:10:00.000Z');
  });
});
