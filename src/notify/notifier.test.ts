import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ObsyncEvent } from '../events/vocabulary.js';
import { createLogger } from '../log/logger.js';
import { Notifier, type SinkPoster, type SinkSpec } from './notifier.js';

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

/** A poster answering from a script of statuses (a thrown code for no response); records every body. */
function poster(script: (number | 'ECONNRESET')[]): SinkPoster & { bodies: unknown[]; release?: () => void } {
  const bodies: unknown[] = [];
  return {
    bodies,
    post(body) {
      bodies.push(body);
      const next = script.shift() ?? 200;
      if (next === 'ECONNRESET') return Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
      return Promise.resolve({ status: next });
    },
    close: () => Promise.resolve(),
  };
}

function notifier(sinks: Omit<SinkSpec, 'index'>[], now = () => 0) {
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
