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
