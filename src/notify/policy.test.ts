import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventBody, ObsyncEvent } from '../events/vocabulary.js';
import { NotificationPolicy } from './policy.js';

let seq = 0;
const at = (target: string, body: EventBody): ObsyncEvent => ({
  ...body,
  seq: ++seq,
  time: new Date(1_800_000_000_000 + seq * 1000).toISOString(),
  target,
});
const counts = { create: 0, update: 0, delete: 0, unchanged: 1, adopted: 0, failed: 0 };
const finished = (target: string, result: 'success' | 'failure' | 'invalid-manifests', planned = true, error?: string) =>
  at(target, { event: 'run-finished', mode: 'apply', result, durationMs: 10, counts, requests: 3, planned, ...(error ? { error } : {}) });
const started = (target: string) => at(target, { event: 'run-started', mode: 'apply', trigger: ['schedule'] });
const drift = (target: string, address: string) =>
  at(target, { event: 'drift', address, action: 'update', reason: 'drifted', paths: ['threshold'] });

function run(policy: NotificationPolicy, target: string, result: 'success' | 'failure', inner: ObsyncEvent[] = [], planned = true) {
  return [
    started(target),
    ...inner,
    finished(target, result, planned, result === 'failure' ? 'GET /api/v2/dashboards failed: no response (ECONNREFUSED)' : undefined),
  ].flatMap((e) => policy.observe(e));
}

describe('NotificationPolicy', () => {
  it('tells a suggested ignore rule at once, with the rule and the manifest line (issue 48)', () => {
    const p = new NotificationPolicy();
    const lines = { manifest: 'metadata:\n  ignore: ["tiles[*].x"]', config: '' };
    const suggested = at('prod', {
      event: 'ignore-suggested',
      address: 'Dashboard/checkout',
      path: 'tiles[*].x',
      times: 3,
      withinDays: 30,
      lines,
    });
    const out = run(p, 'prod', 'success', [suggested]);
    expect(out.map((n) => [n.kind, n.severity])).toEqual([['ignore-suggested', 'info']]);
    expect(out[0]?.summary).toBe(
      'target prod: tiles[*].x of Dashboard/checkout changed on the service in 3 runs within 30 days: ' +
        'suggest metadata.ignore: ["tiles[*].x"] in its manifest, or Dashboard: ["tiles[*].x"] under the ' +
        "target's ignore in obsync.yaml",
    );
  });

  it('a target down for several runs: one failed, then one recovered', () => {
    const p = new NotificationPolicy();
    const out = [
      ...run(p, 'prod', 'success'),
      ...run(p, 'prod', 'failure', [], false),
      ...run(p, 'prod', 'failure', [], false),
      ...run(p, 'prod', 'failure', [], false),
      ...run(p, 'prod', 'success'),
      ...run(p, 'prod', 'success'),
    ];
    expect(out.map((n) => n.kind)).toEqual(['failed', 'recovered']);
    expect(out[0]).toMatchObject({
      severity: 'error',
      summary: 'target prod is failing: GET /api/v2/dashboards failed: no response (ECONNREFUSED)',
    });
    expect(out[1]?.summary).toMatch(/^target prod recovered after 3 failed run\(s\), failing since /);
    expect(out[1]?.since).toBe(out[0]?.since);
  });

  it('invalid manifests are a failing target too', () => {
    const p = new NotificationPolicy();
    expect(p.observe(finished('t', 'invalid-manifests', true)).map((n) => n.summary)).toEqual([
      'target t is failing: the manifests are invalid',
    ]);
  });

  it('a drift is told once while it lasts, again after a run that planned without it; targets are apart', () => {
    const p = new NotificationPolicy();
    const kinds = (ns: { kind: string; target: string }[]) => ns.map((n) => `${n.kind} ${n.target}`);
    expect(kinds(run(p, 'a', 'success', [drift('a', 'Alert/x')]))).toEqual(['drift a']);
    expect(kinds(run(p, 'a', 'success', [drift('a', 'Alert/x')]))).toEqual([]);
    expect(kinds(run(p, 'b', 'success', [drift('b', 'Alert/x')]))).toEqual(['drift b']);
    // A run that failed before planning knows nothing of the drift: it is still on.
    expect(kinds(run(p, 'a', 'failure', [], false))).toEqual(['failed a']);
    expect(kinds(run(p, 'a', 'success', [drift('a', 'Alert/x')]))).toEqual(['recovered a']);
    expect(kinds(run(p, 'a', 'success'))).toEqual([]);
    expect(kinds(run(p, 'a', 'success', [drift('a', 'Alert/x')]))).toEqual(['drift a']);
  });

  it('tells healed, adopted and leadership changes each time', () => {
    const p = new NotificationPolicy();
    const out = [
      at('t', { event: 'healed', address: 'Alert/x', id: '1', paths: ['threshold'] }),
      at('t', { event: 'adopted', address: 'Dashboard/y', id: '2', paths: [] }),
      at('t', { event: 'leader-acquired', holder: 'me' }),
      at('t', { event: 'leader-lost', holder: 'other' }),
      at('t', { event: 'created', address: 'Dashboard/z' }),
    ].flatMap((e) => p.observe(e));
    expect(out.map((n) => n.kind)).toEqual(['healed', 'adopted', 'leader', 'leader']);
    expect(out[1]?.summary).toBe('Dashboard/y adopted existing id 2, already as declared');
  });

  it('whatever the sequence of runs, failed and recovered alternate, failed first, one per streak', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<'success' | 'failure'>('success', 'failure'), { maxLength: 40 }), (results) => {
        const p = new NotificationPolicy();
        const kinds = results.flatMap((r) => run(p, 't', r, [], r === 'success')).map((n) => n.kind);
        // One notification per change of state between runs, starting from "not failing".
        let changes = 0;
        let failing = false;
        for (const r of results) {
          if ((r === 'failure') === failing) continue;
          failing = !failing;
          changes += 1;
        }
        expect(kinds.length).toBe(changes);
        kinds.forEach((k, i) => expect(k).toBe(i % 2 === 0 ? 'failed' : 'recovered'));
      }),
    );
  });
});

describe('NotificationPolicy: one notification per target and class for what a run found', () => {
  const missing = (target: string, address: string) =>
    at(target, { event: 'drift', address, action: 'create', reason: 'missing', paths: [] });
  const created = (target: string, address: string) => at(target, { event: 'created', address, id: address });
  const healed = (target: string, address: string, paths: string[] = []) => at(target, { event: 'healed', address, id: address, paths });
  const names = (n: number) => Array.from({ length: n }, (_, i) => `Dashboard/d${i}`);

  it('an emptied service with 100 objects on each of two targets: one drift and one healed notification per target', () => {
    const p = new NotificationPolicy();
    const out = ['staging', 'prod'].flatMap((t) =>
      run(
        p,
        t,
        'success',
        names(100).flatMap((a) => [missing(t, a), created(t, a), healed(t, a)]),
      ),
    );
    expect(out.map((n) => `${n.kind} ${n.target} ${n.objects?.length}`)).toEqual([
      'drift staging 100',
      'healed staging 100',
      'drift prod 100',
      'healed prod 100',
    ]);
    expect(out[0]?.summary).toBe(
      '100 objects were missing on staging and were recreated: Dashboard/d0, Dashboard/d1, Dashboard/d2 and 97 more',
    );
    expect(out[1]?.summary).toBe('100 objects were recreated on staging: Dashboard/d0, Dashboard/d1, Dashboard/d2 and 97 more');
    expect(out[0]?.event).toBe(out[0]?.objects?.[0]);
  });

  it('one object reads as itself; several reasons in one run are told in one notification', () => {
    const p = new NotificationPolicy();
    const [one] = run(p, 'prod', 'success', [drift('prod', 'Alert/x')]);
    expect(one?.summary).toBe('Alert/x was changed on prod: threshold');
    const mixed = run(p, 'prod', 'success', [
      ...['Dashboard/a', 'Dashboard/b'].flatMap((a) => [missing('prod', a), healed('prod', a)]),
      drift('prod', 'Alert/y'),
      healed('prod', 'Alert/y', ['threshold']),
    ]);
    expect(mixed.map((n) => n.summary)).toEqual([
      '3 objects drifted on prod: 2 were missing and were recreated (Dashboard/a and Dashboard/b); 1 was ' +
        'changed and was put back (Alert/y)',
      '3 objects were put back on prod: 2 were recreated (Dashboard/a and Dashboard/b); 1 was put back as declared (Alert/y)',
    ]);
  });

  it('whatever the runs, each (run, target, class) is at most one notification, and every object event is told exactly once', () => {
    const objectEvent = fc.record({
      kind: fc.constantFrom('missing', 'drift', 'healed', 'adopted', 'created'),
      n: fc.integer({ min: 0, max: 30 }),
    });
    const runs = fc.array(fc.record({ target: fc.constantFrom('a', 'b'), events: fc.array(objectEvent, { maxLength: 40 }) }), {
      maxLength: 8,
    });
    fc.assert(
      fc.property(runs, (rs) => {
        const p = new NotificationPolicy();
        for (const r of rs) {
          const events = r.events.map(({ kind, n }) => {
            const address = `Dashboard/d${n}`;
            if (kind === 'missing') return missing(r.target, address);
            if (kind === 'drift') return drift(r.target, address);
            if (kind === 'healed') return healed(r.target, address);
            if (kind === 'created') return created(r.target, address);
            return at(r.target, { event: 'adopted', address, id: address, paths: [] });
          });
          const out = run(p, r.target, 'success', events);
          const classes = out.map((n) => n.kind);
          expect(new Set(classes).size).toBe(classes.length);
          expect(out.every((n) => n.target === r.target)).toBe(true);
          // healed and adopted are told each time: every one is in exactly one notification of its class.
          for (const kind of ['healed', 'adopted'] as const) {
            const told = out.filter((n) => n.kind === kind).flatMap((n) => n.objects ?? []);
            expect(told).toEqual(events.filter((e) => e.event === kind));
          }
        }
      }),
      { numRuns: 50 },
    );
  });
});
