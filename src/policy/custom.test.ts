import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPolicy } from './check.js';
import type { PolicyRule } from './policy-manifest.js';
import { alert, dashboard, webhook } from './test-resources.js';
import type { DesiredResource } from '../core/resource.js';

let line = 0;
function rule(id: string, expression: string, extra: Partial<PolicyRule> = {}): PolicyRule {
  line += 1;
  return {
    id,
    severity: 'error',
    kinds: ['Dashboard'],
    expression,
    message: `${id} failed`,
    policy: 'p',
    file: 'policies/p.yaml',
    line,
    col: 7,
    ...extra,
  };
}

const run = (resources: DesiredResource[], rules: PolicyRule[], target = '') =>
  checkPolicy({
    resources,
    rules,
    settings: { rules: { 'alert-channel': 'off', 'unused-webhook': 'off' } },
    target: { name: target, variant: 'self-hosted' },
  });

describe('custom rules (CEL)', () => {
  it('true passes, false is a finding with the rule message at the object', () => {
    const r = rule('has-tiles', 'size(object.spec.tiles) > 0');
    const found = run([dashboard('empty'), dashboard('full', { tiles: [{ key: 'a' }] })], [r]);
    expect(found).toEqual([
      expect.objectContaining({
        rule: 'has-tiles',
        severity: 'error',
        address: 'Dashboard/empty',
        message: 'Dashboard/empty: has-tiles failed',
      }),
    ]);
  });

  it('a rule that does not compile is an error naming the rule and its file:line, never a pass', () => {
    const bad = rule('bad', 'object.spec.name +');
    const notBool = rule('not-bool', '"text"');
    const found = run([dashboard('d')], [bad, notBool]);
    expect(found.map((f) => [f.rule, f.severity, `${f.file}:${f.line}`])).toEqual([
      ['bad', 'error', `policies/p.yaml:${bad.line}`],
      ['not-bool', 'error', `policies/p.yaml:${notBool.line}`],
    ]);
    expect(found[0]?.message).toContain("rule 'bad' does not compile");
  });

  it('a rule that fails to evaluate on an object is an error naming the rule, its line and the object', () => {
    const r = rule('missing-field', 'object.spec.nope == 1', { severity: 'warning' });
    const found = run([dashboard('d')], [r]);
    expect(found).toEqual([expect.objectContaining({ rule: 'missing-field', severity: 'error', file: 'policies/p.yaml', line: r.line })]);
    expect(found[0]?.message).toMatch(/could not be evaluated on Dashboard\/d \(manifests\/all\.yaml:\d+\)/);
    expect(found[0]?.address).toBeUndefined();
  });

  it('ids are unique and not a built-in rule id', () => {
    const found = run([dashboard('d')], [rule('same', 'true'), rule('same', 'true'), rule('unused-webhook', 'true')]);
    expect(found.map((f) => f.message)).toEqual([
      expect.stringContaining('is also used at'),
      expect.stringContaining("is a built-in rule's"),
    ]);
  });

  it('scope: only the kinds listed, and only the targets listed', () => {
    const r = rule('never', 'false', { kinds: ['Alert'], targets: ['prod'] });
    const objects = [dashboard('d'), alert('a', 'ops'), webhook('ops')];
    expect(run(objects, [r], 'prod').map((f) => f.address)).toEqual(['Alert/a']);
    expect(run(objects, [r], 'staging')).toEqual([]);
    expect(run(objects, [r])).toEqual([]);
  });

  it('a waiver names the rule and keeps the finding, with its reason, but not as blocking', () => {
    const r = rule('never', 'false');
    const found = run([dashboard('d', {}, { waivers: [{ rule: 'never', reason: 'legacy board' }] })], [r]);
    expect(found).toEqual([expect.objectContaining({ rule: 'never', waived: 'legacy board' })]);
  });

  it('the input: object (manifest), change (lint) and target', () => {
    const r = rule(
      'input',
      'object.kind == "Dashboard" && object.metadata.name == "d" && change.action == "lint" && target.name == "prod"',
    );
    expect(run([dashboard('d')], [r], 'prod')).toEqual([]);
  });

  it('property: adding a waiver never changes any finding but the waived one', () => {
    const rules = [
      rule('r1', 'size(object.spec.tiles) > 0'),
      rule('r2', 'object.spec.name.startsWith("A")', { severity: 'warning' }),
      rule('r3', 'object.spec.nope'),
    ];
    const objects = fc.uniqueArray(
      fc.record({ name: fc.stringMatching(/^[a-z]{1,6}$/), title: fc.string({ maxLength: 4 }), tiles: fc.nat(2) }),
      {
        selector: (o) => o.name,
        minLength: 1,
        maxLength: 6,
      },
    );
    const settings = { requiredTags: ['owner'], namePatterns: { Dashboard: '^[A-Z]' } };
    fc.assert(
      fc.property(
        objects,
        fc.nat(),
        fc.constantFrom('r1', 'r2', 'r3', 'required-tags', 'name-pattern', 'unused-webhook'),
        (specs, pick, waived) => {
          const resources = specs.map((o) =>
            dashboard(o.name, { name: o.title, tiles: Array.from({ length: o.tiles }, (_, i) => ({ key: `k${i}` })) }),
          );
          const target = { name: '', variant: '' };
          const before = checkPolicy({ resources, rules, settings, target });
          const index = pick % resources.length;
          const chosen = resources[index];
          if (!chosen) return;
          const withWaiver = resources.map((r, i) => (i === index ? { ...r, waivers: [{ rule: waived, reason: 'because' }] } : r));
          const after = checkPolicy({ resources: withWaiver, rules, settings, target });
          expect(after.length).toBe(before.length);
          after.forEach((f, i) => {
            const waivedOne = f.address === chosen.address && f.rule === waived;
            expect(f).toEqual(waivedOne ? { ...before[i], waived: 'because' } : before[i]);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
