import { describe, expect, it } from 'vitest';
import type { Address, PlanStep } from '../core/plan.js';
import { runScheduled, type StepOutcome } from './schedule.js';

const step = (address: Address, dependsOn: Address[] = []): PlanStep => ({
  address,
  kind: address.startsWith('Alert') ? 'Alert' : 'Dashboard',
  name: address.split('/')[1] ?? '',
  action: 'create',
  reason: 'missing',
  changes: [],
  dependsOn,
});

describe('runScheduled', () => {
  it('runs dependants only after their dependency, and never more than the cap at once', async () => {
    const order: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const steps = [
      step('Dashboard/a'),
      step('Dashboard/b'),
      step('Dashboard/c'),
      step('Alert/x', ['Dashboard/a']),
      step('Alert/y', ['Dashboard/b']),
    ];
    const outcomes = await runScheduled(
      steps,
      async (s) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        order.push(s.address);
        inFlight -= 1;
      },
      { concurrency: 2 },
    );
    expect(maxInFlight).toBe(2);
    expect(order.indexOf('Alert/x')).toBeGreaterThan(order.indexOf('Dashboard/a'));
    expect(order.indexOf('Alert/y')).toBeGreaterThan(order.indexOf('Dashboard/b'));
    expect([...outcomes.values()].every((o) => o.status === 'done')).toBe(true);
  });

  it('skips the dependants of a failed step and runs the others', async () => {
    const steps = [
      step('Dashboard/a'),
      step('Dashboard/b'),
      step('Alert/x', ['Dashboard/a']),
      step('Alert/z', ['Alert/x']),
      step('Alert/y', ['Dashboard/b']),
    ];
    const outcomes = await runScheduled(
      steps,
      (s) => (s.address === 'Dashboard/a' ? Promise.reject(new Error('boom')) : Promise.resolve()),
      { concurrency: 4 },
    );
    expect(outcomes.get('Dashboard/a')?.status).toBe('failed');
    expect(outcomes.get('Alert/x')).toEqual({ status: 'skipped', reason: 'depends on Dashboard/a, which did not apply' });
    expect(outcomes.get('Alert/z')?.status).toBe('skipped');
    expect(outcomes.get('Alert/y')?.status).toBe('done');
    expect(outcomes.get('Dashboard/b')?.status).toBe('done');
  });

  it('stops starting steps once aborted', async () => {
    const ctrl = new AbortController();
    const ran: string[] = [];
    const outcomes = await runScheduled(
      [step('Dashboard/a'), step('Dashboard/b'), step('Dashboard/c')],
      (s) => {
        ran.push(s.address);
        ctrl.abort();
        return Promise.resolve();
      },
      { concurrency: 1, signal: ctrl.signal },
    );
    expect(ran).toEqual(['Dashboard/a']);
    expect(outcomes.get('Dashboard/c')).toEqual({ status: 'skipped', reason: 'the run was interrupted', stopped: true });
  });

  it('skips steps caught in a dependency cycle and runs the rest', async () => {
    const ran: string[] = [];
    const outcomes = await runScheduled(
      [step('Alert/x', ['Alert/y']), step('Alert/y', ['Alert/x']), step('Dashboard/a')],
      (s) => {
        ran.push(s.address);
        return Promise.resolve();
      },
      { concurrency: 2 },
    );
    expect(ran).toEqual(['Dashboard/a']);
    expect(outcomes.get('Alert/x')).toEqual({ status: 'skipped', reason: 'dependency cycle' });
    expect(outcomes.get('Alert/y')).toEqual({ status: 'skipped', reason: 'dependency cycle' });
  });

  it('marks the dependants of an interrupted step as interrupted too', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const outcomes = await runScheduled([step('Dashboard/a'), step('Alert/x', ['Dashboard/a'])], () => Promise.resolve(), {
      concurrency: 1,
      signal: ctrl.signal,
    });
    expect(outcomes.get('Alert/x')).toEqual({ status: 'skipped', reason: 'the run was interrupted', stopped: true });
  });

  it('starts ready steps in plan order', async () => {
    const ran: string[] = [];
    const steps = Array.from({ length: 50 }, (_, i) => step(`Dashboard/d${String(i).padStart(2, '0')}` as Address));
    await runScheduled(steps, (s) => Promise.resolve(void ran.push(s.address)), { concurrency: 3 });
    expect(ran).toEqual(steps.map((s) => s.address));
  });

  it('skips steps whose dependency failed before the schedule ran, and their dependants', async () => {
    const ran: string[] = [];
    const settled = new Map<Address, StepOutcome>([
      ['Dashboard/a', { status: 'failed', error: new Error('boom') }],
      ['Dashboard/b', { status: 'done' }],
    ]);
    const outcomes = await runScheduled(
      [step('Alert/x', ['Dashboard/a']), step('Alert/z', ['Alert/x']), step('Alert/y', ['Dashboard/b'])],
      (s) => Promise.resolve(void ran.push(s.address)),
      { concurrency: 2 },
      settled,
    );
    expect(ran).toEqual(['Alert/y']);
    expect(outcomes.get('Alert/x')).toEqual({ status: 'skipped', reason: 'depends on Dashboard/a, which did not apply' });
    expect(outcomes.get('Alert/z')).toEqual({ status: 'skipped', reason: 'depends on Alert/x, which did not apply' });
  });
});
