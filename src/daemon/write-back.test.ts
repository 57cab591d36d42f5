import { describe, expect, it } from 'vitest';
import type { Plan, PlanStep } from '../core/plan.js';
import type { Proposal, ProposalRequest, Proposer } from '../proposals/index.js';
import { WriteBack } from './write-back.js';

const step = (address: PlanStep['address'], reason: PlanStep['reason'], action: PlanStep['action'] = 'update'): PlanStep =>
  ({
    address,
    kind: address.split('/')[0],
    name: address.split('/')[1],
    action,
    reason,
    changes: [],
    dependsOn: [],
  }) as unknown as PlanStep;

function recordingProposer(answer: Partial<Proposal>): Proposer & { requests: ProposalRequest[] } {
  const requests: ProposalRequest[] = [];
  return {
    requests,
    propose(request) {
      requests.push(request);
      return Promise.resolve({
        status: 'opened',
        branch: 'obsync/propose/t',
        url: 'https://forge.example/pr/1',
        openedAt: '2026-11-01T00:00:00.000Z',
        ageSeconds: 0,
        objects: [...request.objects],
        commit: 'abc',
        conflicts: [],
        ...answer,
      });
    },
  };
}

const planOf = (steps: PlanStep[]): Plan =>
  ({
    formatVersion: 1,
    target: 't',
    variant: 'self-hosted',
    steps,
    summary: { create: 0, update: steps.length, delete: 0, noop: 0, move: 0 },
    prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics: [],
    errored: false,
  }) as unknown as Plan;

const input = (plan: Plan, held: PlanStep['address'][]) =>
  ({ target: 't', desired: [], adopt: 'by-name', plan, held }) as unknown as Parameters<WriteBack['propose']>[0];

describe('the daemon write-back of a drift: propose target', () => {
  it('holds drift of owned objects, and a manifest change only for an object the open proposal carries', async () => {
    const proposer = recordingProposer({ objects: ['Alert/slow'] });
    const wb = new WriteBack({ proposer, root: '/p', read: () => undefined }, () => new Date('2026-11-02T00:00:00Z'));
    const owned = new Set(['Dashboard/a', 'Alert/slow']);
    const before = wb.holds(owned);
    expect(before(step('Dashboard/a', 'drifted'))).toBe(true);
    expect(before(step('Dashboard/a', 'missing', 'create'))).toBe(true);
    expect(before(step('Dashboard/new', 'missing', 'create'))).toBe(false);
    expect(before(step('Alert/slow', 'spec-changed'))).toBe(false);
    expect(before(step('Dashboard/a', 'unchanged', 'noop'))).toBe(false);

    const changed = { ...step('Alert/slow', 'spec-changed'), changes: [{ path: 'threshold', before: 700, after: 300 }] };
    await wb.propose(input(planOf([changed]), ['Alert/slow']));
    expect(wb.holds(owned)(step('Alert/slow', 'spec-changed'))).toBe(true);
    expect(wb.holds(owned)(step('Dashboard/a', 'spec-changed'))).toBe(false);
    const [sent] = proposer.requests;
    expect(sent?.files).toEqual([]);
    expect(sent?.conflicts?.map((c) => c.message)).toEqual([expect.stringContaining('Git: 300, service: 700')]);
  });

  it('expires a proposal open longer than proposalMaxAge, and forgets one that was closed', async () => {
    const proposer = recordingProposer({});
    let now = new Date('2026-11-01T01:00:00Z');
    const wb = new WriteBack({ proposer, root: '/p', read: () => undefined, maxAgeMs: 2 * 3_600_000 }, () => now);
    await wb.propose(input(planOf([]), []));
    expect(wb.proposal?.url).toBe('https://forge.example/pr/1');
    expect(wb.expired()).toBe(false);
    now = new Date('2026-11-01T02:00:01Z');
    expect(wb.expired()).toBe(true);
    const closing = new WriteBack({ proposer: recordingProposer({ status: 'closed' }), root: '/p', read: () => undefined }, () => now);
    await closing.propose(input(planOf([]), []));
    expect(closing.proposal).toBeNull();
    expect(closing.expired()).toBe(false);
  });
});
