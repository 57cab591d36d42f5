import { describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION, summarize, type Plan } from '../core/plan.js';
import { commitMessage, MAX_BODY_LENGTH, proposalBody, proposalTitle } from './body.js';

const plan: Plan = {
  formatVersion: PLAN_FORMAT_VERSION,
  target: 'prod',
  variant: 'hosted',
  steps: [],
  summary: summarize([]),
  prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
  forget: [],
  diagnostics: [],
  errored: false,
};

describe('the text of a proposal', () => {
  it("leads with what merging does, lists the conflicts inert, and carries the plan's markdown", () => {
    const body = proposalBody('prod', plan, [
      { address: 'Alert/slow', file: 'alerts.yaml', line: 4, path: 'spec.threshold', message: 'set from ${var:limit}; @team see #12' },
    ]);
    expect(body).toMatch(/^\*\*Changes made on the service for target prod\.\*\* Merging this brings the manifests to the live state/);
    expect(body).toContain('1 conflict(s) obsync did not decide');
    expect(body).toContain('alerts.yaml:4 spec.threshold (Alert/slow)');
    // Mentions and references from manifests never notify anyone.
    expect(body).toContain('<code>@team</code>');
    expect(body).toContain('<code>#12</code>');
    expect(body).toContain('Plan: 0 to create');
  });

  it('stays within the forge limit with many conflicts', () => {
    const many = Array.from({ length: 2000 }, (_, i) => ({
      address: `Alert/a${i}`,
      file: 'a.yaml',
      line: i,
      path: 'spec.x',
      message: 'x'.repeat(50),
    }));
    const body = proposalBody('prod', plan, many);
    expect(body.length).toBeLessThan(MAX_BODY_LENGTH);
    expect(body).toMatch(/… and \d+ more/);
  });

  it('names the objects in the title and the commit message', () => {
    expect(proposalTitle('prod', ['Dashboard/a'])).toBe('obsync: Dashboard/a changed on the service (prod)');
    expect(proposalTitle('prod', ['Dashboard/a', 'Alert/b'])).toBe('obsync: 2 objects changed on the service (prod)');
    expect(commitMessage('prod', ['Dashboard/a'])).toBe('obsync: bring the manifests of prod to the live state\n\n- Dashboard/a');
  });
});
