import { PassThrough } from 'node:stream';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../core/scrub.js';
import { createLogger } from '../log/logger.js';
import { EventBus } from './bus.js';
import { Ring } from './ring.js';
import { EVENT_NAMES, eventSchema, type EventBody, type EventName } from './vocabulary.js';

function bus(opts: Partial<ConstructorParameters<typeof EventBus>[0]> = {}) {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const counted: string[] = [];
  const b = new EventBus({
    logger: createLogger({ format: 'json', level: 'info', stream: out }),
    levels: 'by-event',
    count: (target, event) => counted.push(`${target} ${event}`),
    now: () => new Date('2026-11-26T12:00:00Z'),
    ...opts,
  });
  return {
    b,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    counted,
  };
}

describe('EventBus', () => {
  it('numbers, logs with an event field and a fixed message, counts and keeps each event', () => {
    const { b, lines, counted } = bus();
    const e = b.emit('prod', { event: 'drift', address: 'Dashboard/x', action: 'update', reason: 'drifted', paths: ['name'] });
    expect(e).toEqual({
      seq: 1,
      time: '2026-11-26T12:00:00.000Z',
      target: 'prod',
      event: 'drift',
      address: 'Dashboard/x',
      action: 'update',
      reason: 'drifted',
      paths: ['name'],
    });
    expect(eventSchema.safeParse(e).success).toBe(true);
    expect(lines()).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'drift', event: 'drift', seq: 1, target: 'prod', address: 'Dashboard/x' }),
    ]);
    expect(counted).toEqual(['prod drift']);
    expect(b.list()).toEqual([e]);
    expect(b.history('prod')).toEqual([e]);
  });

  it('keeps a bounded ring per target, serves it by target and after a cursor or a time', () => {
    const { b } = bus({ ringSize: 3 });
    for (let i = 0; i < 5; i++) b.emit('a', { event: 'manifests-recovered' });
    b.emit('b', { event: 'manifests-recovered' });
    expect(b.list({ target: 'a' }).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(b.list().map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(b.list({ since: 4 }).map((e) => e.seq)).toEqual([5, 6]);
    expect(b.list({ since: new Date('2026-11-26T12:00:00Z') }).length).toBe(4);
    expect(b.list({ since: new Date('2026-11-26T12:00:01Z') })).toEqual([]);
    expect(b.list({ target: 'nope' })).toEqual([]);
    expect(b.recent('a', 2).map((e) => e.seq)).toEqual([5, 4]);
    expect(b.lastSeq).toBe(6);
  });

  it('passes every string through the one scrubber: a secret in a server message never reaches the log, the ring or a subscriber', () => {
    const secret = 'bus-secret-4f9a81c2';
    registerSecret(secret);
    const { b, lines } = bus();
    const seen: string[] = [];
    b.subscribe((e) => seen.push(JSON.stringify(e)));
    b.emit('prod', { event: 'failed', code: 'API', message: `server echoed Authorization: ${secret}`, address: 'Dashboard/x' });
    const everything = [JSON.stringify(lines()), JSON.stringify(b.list()), ...seen].join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).toContain('(sensitive)');
  });

  it('keeps a subscriber that throws away from the others and from the caller', () => {
    const { b, lines } = bus();
    const got: number[] = [];
    b.subscribe(() => {
      throw new Error('boom');
    });
    b.subscribe((e) => got.push(e.seq));
    expect(() => b.emit('t', { event: 'manifests-recovered' })).not.toThrow();
    expect(got).toEqual([1]);
    expect(lines().some((l) => l.msg === 'event subscriber failed')).toBe(true);
  });

  it('logs every event at info for the CLI (its output already shows the plan)', () => {
    const { b, lines } = bus({ levels: 'info' });
    b.emit('t', { event: 'failed', code: 'X', message: 'm' });
    expect(lines()[0]).toMatchObject({ level: 'info', event: 'failed' });
  });
});

describe('Ring', () => {
  it('holds the newest `capacity` entries in order, whatever is pushed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer(), { maxLength: 100 }), (capacity, items) => {
        const ring = new Ring<number>(capacity);
        for (const i of items) ring.push(i);
        const expected = items.slice(-capacity);
        expect(ring.toArray()).toEqual(expected);
        expect(ring.size).toBe(expected.length);
        expect(ring.newest(3)).toEqual(expected.slice(-3).reverse());
      }),
    );
  });

  it('logs each event at the level of what it says: failures at error, degraded states at warn, the rest at info', () => {
    const counts = { create: 0, update: 0, delete: 0, unchanged: 3, adopted: 0, failed: 1 };
    const run = { mode: 'apply', durationMs: 10, counts, requests: 2, planned: true } as const;
    const cases: [EventBody, 'info' | 'warn' | 'error'][] = [
      [{ event: 'run-finished', ...run, result: 'failure', error: 'Dashboard/x: HTTP 500' }, 'error'],
      [{ event: 'run-finished', ...run, planned: false, result: 'failure', error: 'no response' }, 'error'],
      [{ event: 'run-finished', ...run, result: 'invalid-manifests' }, 'warn'],
      [{ event: 'run-finished', ...run, result: 'success' }, 'info'],
      [{ event: 'failed', code: 'API', message: 'HTTP 500' }, 'error'],
      [{ event: 'target-unreachable', code: 'API', status: 503, message: 'HTTP 503' }, 'error'],
      [{ event: 'manifests-invalid', errors: 1, diagnostics: [] }, 'error'],
      [{ event: 'drift', address: 'Dashboard/x', action: 'update', reason: 'drifted', paths: [] }, 'warn'],
      [{ event: 'refused', guard: 'prune', message: 'more than 10 deletes' }, 'warn'],
      [{ event: 'non-convergent', address: 'Dashboard/x', paths: ['name'] }, 'warn'],
      [{ event: 'adopted', address: 'Dashboard/x', id: '1', paths: [] }, 'warn'],
      [{ event: 'leader-lost', holder: 'other/2' }, 'warn'],
      [{ event: 'replicas-disagree', replicas: ['other/2'], details: ['other/2 runs 0.2.0'] }, 'warn'],
      [{ event: 'replicas-disagree', replicas: [], details: [] }, 'info'],
      [{ event: 'run-started', mode: 'apply', trigger: ['schedule'] }, 'info'],
      [{ event: 'healed', address: 'Dashboard/x', paths: [] }, 'info'],
      [{ event: 'created', address: 'Dashboard/x' }, 'info'],
      [{ event: 'updated', address: 'Dashboard/x', paths: [] }, 'info'],
      [{ event: 'deleted', address: 'Dashboard/x' }, 'info'],
      [{ event: 'imported', address: 'Dashboard/x', id: '1', via: 'import' }, 'info'],
      [{ event: 'moved', address: 'Dashboard/x', from: 'Dashboard/y' }, 'info'],
      [{ event: 'leader-acquired', holder: 'me/1' }, 'info'],
      [{ event: 'manifests-recovered' }, 'info'],
      [{ event: 'target-recovered', downSince: '2026-11-26T11:00:00.000Z' }, 'info'],
      [{ event: 'proposal', outcome: 'opened', branch: 'obsync/propose/t', objects: ['Dashboard/x'], conflicts: 0 }, 'info'],
      [{ event: 'proposal', outcome: 'conflicted', branch: 'obsync/propose/t', objects: ['Dashboard/x'], conflicts: 1 }, 'warn'],
      [
        {
          event: 'ignore-suggested',
          address: 'Dashboard/x',
          path: 'tiles[*].x',
          times: 3,
          withinDays: 30,
          lines: { manifest: 'metadata:\n  ignore: ["tiles[*].x"]', config: 'targets: []' },
        },
        'info',
      ],
    ];
    const covered = new Set<EventName>(cases.map(([body]) => body.event));
    expect(EVENT_NAMES.filter((n) => !covered.has(n))).toEqual([]);
    const { b, lines } = bus();
    for (const [body] of cases) b.emit('prod', body);
    expect(lines().map((l) => `${String(l.event)} ${typeof l.result === 'string' ? l.result : ''} ${String(l.level)}`)).toEqual(
      cases.map(([body, level]) => `${body.event} ${'result' in body ? body.result : ''} ${level}`),
    );
  });
});
