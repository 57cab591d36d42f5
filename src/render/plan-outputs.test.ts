/**
 * The plan and apply outputs on real plans (the sandbox on loopback, both variants; see
 * test/support/plans.ts): JSON validated by the committed JSON Schemas, the text plan complete
 * and in order, the pull-request markdown in domain terms and within GitHub's size limit.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize, type Plan } from '../core/plan.js';
import type { RunReport } from '../engine/reconcile.js';
import { dashboardYaml, PIPE_SECRET, PlanFixture, scenario, type ScenarioReports } from '../../test/support/plans.js';
import { applyReportDocument } from './apply-json.js';
import { outputJsonSchemaText, type OutputSchemaFile } from '../cli/output-schemas.js';
import { planDocument, renderPlanJson } from './plan-json.js';
import { parsePlanDocument } from './plan-json-read.js';
import type { PlanDocument } from './plan-schema.js';
import type { ResourceChange } from './plan-schema-changes.js';
import { renderPlansMarkdown } from './plan-markdown.js';
import { renderPlansText } from './plan-text.js';
import { renderTargetsPlan } from './targets.js';

const ORIGIN = { generatedAt: new Date('2026-01-02T03:04:05Z'), obsyncVersion: '0.1.0', manifests: ['/m'] };
const VARIANTS = ['hosted', 'self-hosted'] as const;
const runs: Record<string, ScenarioReports> = {};

function validator(file: OutputSchemaFile): ValidateFunction {
  const ajv = new Ajv({ strict: true, allErrors: true });
  return ajv.compile(JSON.parse(readFileSync(`docs/schema/${file}`, 'utf8')) as object);
}

function expectValid(validate: ValidateFunction, doc: unknown): void {
  const ok = validate(JSON.parse(JSON.stringify(doc)));
  expect(validate.errors ?? [], 'the document validates against its committed schema').toEqual([]);
  expect(ok).toBe(true);
}

const plans = (r: ScenarioReports): [string, Plan][] => Object.entries(r).map(([k, v]: [string, RunReport]) => [k, v.plan]);
const text = (plan: Plan) => renderPlansText([plan], { color: false });
const change = (doc: PlanDocument, address: string): ResourceChange | undefined =>
  doc.resource_changes.find((c) => c.obsync_address === address);

beforeAll(async () => {
  for (const v of VARIANTS) runs[v] = await scenario(v);
}, 60_000);

describe('the JSON schemas in docs/schema', () => {
  it.each(['plan.schema.json', 'apply-report.schema.json'] as const)(
    '%s is the one the code describes (regenerate with `npm run docs`)',
    (file) => {
      expect(readFileSync(`docs/schema/${file}`, 'utf8')).toBe(outputJsonSchemaText(file));
    },
  );
});

describe.each(VARIANTS)('the JSON plan (%s)', (variant) => {
  const r = () => runs[variant] as ScenarioReports;

  it('validates against docs/schema/plan.schema.json for every plan of the scenario, and for several targets at once', () => {
    const validate = validator('plan.schema.json');
    for (const [, plan] of plans(r())) expectValid(validate, planDocument([plan], ORIGIN));
    const both = planDocument([r().update.plan, r().error.plan], ORIGIN);
    expectValid(validate, both);
    expect(both.targets).toHaveLength(2);
    expect(both.summary.update).toBe((both.targets[0]?.summary.update ?? 0) + (both.targets[1]?.summary.update ?? 0));
  });

  it('has Terraform actions with whole before and after objects', () => {
    const created = planDocument([r().create.plan], ORIGIN);
    const dash = change(created, 'Dashboard/checkout');
    expect(dash?.change.actions).toEqual(['create']);
    expect(dash?.change.before).toBeNull();
    expect(Object.keys((dash?.change.after as { tiles: object }).tiles)).toEqual(['p99', 'errors', 'rps']);
    const updated = change(planDocument([r().update.plan], ORIGIN), 'Alert/checkout-p99');
    expect(updated?.change.actions).toEqual(['update']);
    expect(updated?.change).toMatchObject({
      before: { threshold: 500, interval: '5m' },
      after: { threshold: 400, interval: '1m' },
      before_sensitive: false,
      after_sensitive: false,
    });
    const deleted = change(planDocument([r().prune.plan], ORIGIN), 'Dashboard/scratch');
    expect(deleted?.change).toMatchObject({ actions: ['delete'], before: { name: 'Scratch' }, after: null });
    const unchanged = planDocument([r().unchanged.plan], ORIGIN);
    expect(unchanged.resource_changes.every((c) => c.change.actions[0] === 'no-op')).toBe(true);
    expect(unchanged.applyable).toBe(false);
    expect(planDocument([r().update.plan], ORIGIN).applyable).toBe(true);
  });

  it('lists drift apart, from what obsync applied to what the service has now; spec changes are not drift', () => {
    const doc = planDocument([r().update.plan], ORIGIN);
    const drift = doc.resource_drift;
    expect(drift.map((d) => d.obsync_address)).toEqual(['Dashboard/scratch']);
    expect(drift[0]?.change).toMatchObject({ before: { name: 'Scratch' }, after: { name: 'Scratch (edited by hand)' } });
    expect(change(doc, 'Dashboard/scratch')?.change).toMatchObject({
      actions: ['update'],
      before: { name: 'Scratch (edited by hand)' },
      after: { name: 'Scratch' },
    });
  });

  it('marks adoptions as imports, counted in the summary', () => {
    const doc = planDocument([r().create.plan], ORIGIN);
    const legacy = change(doc, 'Dashboard/legacy');
    expect(legacy?.change.importing?.id).toEqual(legacy?.id);
    expect(legacy?.change.importing?.id).toMatch(/\S/);
    expect(doc.summary.adopt).toBe(variant === 'hosted' ? 2 : 1);
    expect(change(doc, 'Dashboard/checkout')?.change.importing).toBeUndefined();
  });

  it('parses back into the very plans apply executes', () => {
    const doc = planDocument([r().update.plan], ORIGIN);
    const saved = parsePlanDocument(renderPlanJson(doc), 'plan.json');
    expect(saved.plans).toEqual([r().update.plan]);
  });

  it('apply reports validate against docs/schema/apply-report.schema.json, with the plan summary keys', () => {
    const validate = validator('apply-report.schema.json');
    for (const report of [r().apply, r().pruneApply]) expectValid(validate, applyReportDocument([report], ORIGIN));
    const doc = applyReportDocument([r().apply], ORIGIN);
    expect(Object.keys(doc.summary)).toEqual(Object.keys(planDocument([r().create.plan], ORIGIN).summary));
    expect(doc.summary).toMatchObject({ create: 3, adopt: variant === 'hosted' ? 2 : 1 });
    expect(applyReportDocument([r().pruneApply], ORIGIN).summary.delete).toBe(1);
    expect(doc.errored).toBe(false);
  });
});

/**
 * Issue 40 item 2 and issue 52 item 1: a plan with a target that could not be planned, or with any
 * error, is incomplete in every format — JSON `errored: true` (and `applyable: false` when a
 * target is missing), the markdown led by one banner whatever the cause, the summary line saying
 * "Incomplete".
 */
describe('an incomplete plan', () => {
  const down = { target: 'down', error: 'GET /api/v2/dashboards on 127.0.0.1:1 failed: connection refused' };
  const outcomes = (plans: Plan[], failed: (typeof down)[]) => [
    ...plans.map((plan) => ({ target: plan.target, plan })),
    ...failed.map((f) => ({ ...f })),
  ];

  it('says so in the JSON verdicts when a target could not be planned (a gate on errored or applyable fails)', () => {
    const r = runs.hosted as ScenarioReports;
    const doc = JSON.parse(renderTargetsPlan(outcomes([r.update.plan], [down]), 'json', { color: false, origin: ORIGIN })) as PlanDocument;
    expect(doc.failed).toEqual([down]);
    expect(doc.errored).toBe(true);
    expect(doc.applyable).toBe(false);
    expectValid(validator('plan.schema.json'), doc);
  });

  it('leads the markdown with the same banner for a target not planned and for an error, and agrees with the JSON', () => {
    const r = runs.hosted as ScenarioReports;
    const cases: [Plan[], (typeof down)[]][] = [
      [[r.update.plan], []],
      [[r.unchanged.plan], []],
      [[r.error.plan], []],
      [[r.update.plan], [down]],
      [[], [down]],
      [[r.update.plan, r.unchanged.plan], [down]],
      [[r.update.plan, r.error.plan], []],
      [[r.update.plan, r.unchanged.plan], []],
    ];
    for (const [plans, failed] of cases) {
      const o = outcomes(plans, failed);
      const md = renderTargetsPlan(o, 'markdown', { color: false, origin: ORIGIN });
      const doc = JSON.parse(renderTargetsPlan(o, 'json', { color: false, origin: ORIGIN })) as PlanDocument;
      const what = `${plans.map((p) => p.target).join('+')} / ${failed.length} not planned`;
      expect(md.startsWith('> [!CAUTION]\n> **Incomplete plan'), what).toBe(doc.errored);
      expect(/^\*\*Plan.*Incomplete: /m.test(md), what).toBe(doc.errored);
      if (failed.length > 0) {
        expect(doc.applyable, what).toBe(false);
        const notice = md.indexOf('**Target `down` was not planned:**');
        expect(notice, what).toBeGreaterThan(-1);
        expect(notice, what).toBeLessThan(Math.max(md.indexOf('### '), 0) || md.length);
      }
    }
  });

  it('says "Incomplete" on the text summary line too', () => {
    const r = runs.hosted as ScenarioReports;
    expect(text(r.error.plan)).toMatch(/^Plan: .* unchanged\. Incomplete: \d+ error\(s\), listed above/m);
    expect(text(r.update.plan)).not.toContain('Incomplete');
  });
});

describe('secrets in the JSON plan', () => {
  it('are masked in before and after, and located by before_sensitive / after_sensitive', () => {
    const doc = planDocument([(runs.hosted as ScenarioReports).create.plan], ORIGIN);
    const pipe = change(doc, 'Pipe/events-s3');
    expect(pipe?.change.after_sensitive).toEqual({ source: { objectStorage: { accessKey: true } } });
    expect(pipe?.change.after).toMatchObject({ source: { objectStorage: { accessKey: '(sensitive)' } } });
    expect(renderPlanJson(doc)).not.toContain(PIPE_SECRET);
    expect(text((runs.hosted as ScenarioReports).create.plan)).not.toContain(PIPE_SECRET);
    expect(renderPlansMarkdown([(runs.hosted as ScenarioReports).create.plan])).not.toContain(PIPE_SECRET);
  });
});

describe.each(VARIANTS)('the text plan (%s)', (variant) => {
  const r = () => runs[variant] as ScenarioReports;

  it('prints errors first, then the changes, and never "No changes." beside them', () => {
    const out = text(r().error.plan);
    expect(out.split('\n')[0]).toMatch(/broken-alert\.yaml:\d+:\d+: error: Alert\/broken: webhook 'no-such-webhook'/);
    expect(out.indexOf('+ Dashboard/extra')).toBeGreaterThan(out.indexOf('no-such-webhook'));
    expect(out).not.toContain('No changes');
    expect(out.trimEnd().split('\n').at(-1)).toMatch(
      /^Plan: 1 to create, 0 to update, 0 to delete, \d+ unchanged\. Incomplete: 1 error\(s\), listed above/,
    );
    const none = renderPlansText([{ ...r().error.plan, steps: r().error.plan.steps.filter((s) => s.action === 'noop') }], { color: false });
    expect(none).not.toContain('No changes');
  });

  it('says "No changes." only when there is nothing to do, and ends with one summary line', () => {
    const out = text(r().unchanged.plan);
    expect(out).toContain('No changes.');
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/^Plan: 0 to create, 0 to update, 0 to delete, \d+ unchanged\.$/);
  });

  it('announces each adoption loudly, before its changes', () => {
    const out = text(r().create.plan);
    const banner = out.indexOf('! Dashboard/legacy will be ADOPTED');
    expect(banner).toBeGreaterThan(-1);
    expect(out.indexOf('~ Dashboard/legacy')).toBeGreaterThan(banner);
    expect(out).toMatch(/to ADOPT/);
    // An adoption that changes nothing (the unchanged plan's first object, as after a lost inventory) is announced too.
    const quiet = r().unchanged.plan;
    const first = quiet.steps[0];
    const adoptOnly = renderPlansText([{ ...quiet, steps: quiet.steps.map((s) => (s === first ? { ...s, adopt: true } : s)) }], {
      color: false,
    });
    expect(adoptOnly).toContain(`! ${first?.address ?? ''} will be ADOPTED`);
    expect(adoptOnly).toContain('No changes.');
    expect(adoptOnly.indexOf('ADOPTED')).toBeLessThan(adoptOnly.indexOf('No changes.'));
  });

  it('shows a changed field as before → after, and a new tile nested in full', () => {
    const out = text(r().update.plan);
    expect(out).toContain('~ threshold: 500 → 400');
    expect(out).toMatch(/\+ tiles\.latency:\n {10}name: "Latency"\n {10}x: 12/);
  });

  it('keeps every field line within 80 columns', () => {
    for (const [, plan] of plans(r())) {
      const long = text(plan)
        .split('\n')
        .filter((l) => /^ {6}/.test(l) && l.length > 80);
      expect(long).toEqual([]);
    }
  });
});

describe.each(VARIANTS)('the markdown plan (%s)', (variant) => {
  const r = () => runs[variant] as ScenarioReports;

  it('puts dashboard changes in tile rows: added, removed, moved, resized, query changed', () => {
    const md = renderPlansMarkdown([r().update.plan]);
    expect(md).toMatch(/\| `p99` p99 latency \| resized, query changed \| 6×4 → 12×4; select\\\[0\\\]\.level 0\.99 → 0\.95 \|/);
    expect(md).toMatch(/\| `errors` Errors \| moved \| 6,0 → 12,4 \|/);
    expect(md).toMatch(/\| `latency` Latency \| added \| at 12,0 size 6×4; line of avg\(Duration\) from Traces \|/);
    expect(md).toMatch(/\| `id [0-9a-f]+` Requests \| removed \|/);
  });

  it('says alert changes in words', () => {
    const md = renderPlansMarkdown([r().update.plan]);
    expect(md).toContain('threshold 500 → 400; interval 5m → 1m; channel ops-slack → ops-webhook');
  });

  it('puts errors before the summary that refers to them', () => {
    const md = renderPlansMarkdown([r().error.plan]);
    expect(md.indexOf('[!CAUTION]')).toBeGreaterThan(-1);
    expect(md.indexOf('[!CAUTION]')).toBeLessThan(md.indexOf('listed above'));
    expect(md.indexOf('no-such-webhook')).toBeGreaterThan(-1);
    expect(md.indexOf('no-such-webhook')).toBeLessThan(md.indexOf('Dashboard/extra'));
    expect(md).not.toContain('No changes');
  });

  it('calls adoptions out before the changes', () => {
    const md = renderPlansMarkdown([r().create.plan]);
    expect(md).toMatch(/\[!WARNING\]\n> \*\*\d object\(s\) will be ADOPTED\*\*/);
    expect(md.indexOf('ADOPTED')).toBeLessThan(md.indexOf('| object |'));
    expect(md).toMatch(/\| 🟡 update \*\*ADOPT\*\* \| `Dashboard\/legacy` \|/);
  });

  it('has one section per target when there are several', () => {
    const md = renderPlansMarkdown([r().update.plan, r().unchanged.plan]);
    expect(md.startsWith('## obsync plan (2 targets)')).toBe(true);
    expect(md.match(/^### Target /gm)).toHaveLength(2);
  });
});

describe('a plan too large for one comment', () => {
  let fixture: PlanFixture;
  let big: Plan;

  beforeAll(async () => {
    fixture = await PlanFixture.start('self-hosted');
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++)
      files[`d${i}.yaml`] = dashboardYaml(
        `board-${i}`,
        `Board ${i}`,
        Array.from({ length: 6 }, (_, t) => ({ key: `t${t}`, name: `Tile ${t}` })),
      );
    fixture.manifests(files);
    big = (await fixture.run('plan')).plan;
  }, 60_000);
  afterAll(() => fixture.close());

  it('keeps the summary and says how many objects it left out, within the limit', () => {
    const full = renderPlansMarkdown([big], 1_000_000);
    expect(full).not.toContain('Truncated');
    const md = renderPlansMarkdown([big], 12_000);
    expect(md.length).toBeLessThanOrEqual(12_000);
    expect(md).toContain('**Plan: 40 to create');
    const shown = (md.match(/<details>/g) ?? []).length;
    expect(shown).toBeLessThan(40);
    expect(md).toContain(`the details of ${40 - shown} object(s) not shown`);
    const tiny = renderPlansMarkdown([big], 3_000);
    expect(tiny.length).toBeLessThanOrEqual(3_000);
    const rows = (tiny.match(/^\| 🟢 create /gm) ?? []).length;
    expect(tiny).toContain(`${40 - rows} object(s) left out of the table (\`${big.steps[rows]?.address ?? ''}\`, `);
  });

  /** The plan as another target holding only its first `n` objects. */
  const part = (target: string, n: number): Plan => {
    const steps = big.steps.slice(0, n);
    return { ...big, target, steps, summary: summarize(steps) };
  };
  /** Each target's section of a comment of several targets. */
  const sectionsOf = (md: string) => md.split(/^### Target /m).slice(1);
  const rowsOf = (section: string) => [...section.matchAll(/^\| 🟢 create \| `([^`]+)`/gm)].map((m) => m[1]);

  it('shares the room between targets: a large first target leaves the next one its whole table', () => {
    const md = renderPlansMarkdown([part('large', 40), part('small', 3)], 4_000);
    expect(md.length).toBeLessThanOrEqual(4_000);
    const [large = '', small = ''] = sectionsOf(md);
    expect(rowsOf(small)).toEqual(big.steps.slice(0, 3).map((st) => st.address));
    expect(small).not.toContain('left out of the table');
    const shown = rowsOf(large).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(40);
    expect(large).toContain(
      `**Truncated in target \`large\`:** ${40 - shown} object(s) left out of the table (\`${big.steps[shown]?.address ?? ''}\`,`,
    );
  });

  it('gives targets of the same size the same number of rows, each notice naming its target and what it left out', () => {
    const md = renderPlansMarkdown([part('first', 40), part('second', 40)], 9_000);
    expect(md.length).toBeLessThanOrEqual(9_000);
    const [first = '', second = ''] = sectionsOf(md);
    const counts = [rowsOf(first).length, rowsOf(second).length];
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.abs((counts[0] ?? 0) - (counts[1] ?? 0))).toBeLessThanOrEqual(1);
    expect(first).toContain(`**Truncated in target \`first\`:** ${40 - (counts[0] ?? 0)} object(s) left out of the table`);
    expect(second).toContain(`**Truncated in target \`second\`:** ${40 - (counts[1] ?? 0)} object(s) left out of the table`);
  });

  it('never prints the head of an empty table', () => {
    for (const max of [1_500, 2_500, 4_000, 12_000]) {
      const md = renderPlansMarkdown([part('a', 40), part('b', 40), part('c', 2)], max);
      for (const section of sectionsOf(md))
        expect(section.includes('| | object | what changes |'), `${max}: ${section.slice(0, 40)}`).toBe(rowsOf(section).length > 0);
    }
  });
});

describe('a new dashboard with 30 tiles', () => {
  let fixture: PlanFixture;
  let plan: Plan;

  beforeAll(async () => {
    fixture = await PlanFixture.start('hosted');
    fixture.manifests({
      'wall.yaml': dashboardYaml(
        'wall',
        'Wall of charts',
        Array.from({ length: 30 }, (_, i) => ({ key: `tile-${i}`, name: `Chart number ${i} of the wall` })),
      ),
    });
    plan = (await fixture.run('plan')).plan;
  }, 60_000);
  afterAll(() => fixture.close());

  it('shows all 30 tiles in the text plan, each with its position and query', () => {
    const out = text(plan);
    for (let i = 0; i < 30; i++)
      expect(out).toMatch(new RegExp(`\\n {10}tile-${i}:\\n {12}name: "Chart number ${i} of the wall"\\n {12}x: \\d+`));
    expect(out.match(/displayType: "line"/g)).toHaveLength(30);
    expect(out.match(/\n {16}- aggFn: "avg"\n {18}valueExpression: "Duration"\n/g)).toHaveLength(30);
    expect(out).not.toMatch(/more changes|…/);
  });

  it('lists all 30 tiles as added in the markdown', () => {
    const md = renderPlansMarkdown([plan]);
    expect(md.match(/^\| `tile-\d+` Chart number \d+ of the wall \| added \|/gm)).toHaveLength(30);
    expect(md).toContain('new dashboard "Wall of charts" with 30 tile(s)');
  });
});

describe('names from manifests and servers in the markdown', () => {
  let fixture: PlanFixture;
  let plan: Plan;

  beforeAll(async () => {
    fixture = await PlanFixture.start('self-hosted');
    fixture.manifests({
      'odd.yaml': dashboardYaml('odd', "'Pay | <b>ments</b>'", [{ key: 'a', name: 'col | umn `x` </details> *bold*' }]),
    });
    plan = (await fixture.run('plan')).plan;
  }, 60_000);
  afterAll(() => fixture.close());

  it('stay text: no table cell, HTML block or emphasis can be broken out of', () => {
    const md = renderPlansMarkdown([plan]);
    const row = md.split('\n').find((l) => l.startsWith('| `a` '));
    expect(row).toBe('| `a` col \\| umn \\`x\\` \\</details\\> \\*bold\\* | added | at 0,0 size 6×4; line of avg(Duration) from Traces |');
    // Outside code blocks (where HTML is text), every <details> obsync opens is the one it closes.
    const prose = md.replace(/^(`{3,})[a-z]*\n[\s\S]*?\n\1$/gm, '');
    expect(prose.match(/<details>/g)?.length).toBe(prose.match(/<\/details>/g)?.length);
    expect(md).toContain('new dashboard "Pay \\| \\<b\\>ments\\</b\\>" with 1 tile(s)');
  });
});
