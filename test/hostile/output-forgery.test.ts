/**
 * Issue 24 item 8 and issue 30 (markdown): output cannot be forged. Whatever a service or a file
 * puts in any rendered field — names, ids, values long enough to be folded, notes, cascades,
 * prune reasons, error messages, log fields — every format obsync prints (text with and without
 * colour, markdown, `--output github`, JSON, the apply summary, logs) comes out of the one output
 * pass with no raw control, bidi or zero-width character, no line the GitHub runner would take
 * as a workflow command but obsync's own annotations, no text from data starting a line (so no
 * forged `Plan:` line), and, in markdown, no live `@mention` or `#123` reference.
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApplyReport } from '../../src/applier/context.js';
import { githubAnnotation } from '../../src/cli/commands/validate.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { finalText } from '../../src/core/output.js';
import type { Json } from '../../src/core/wire.js';
import { summarize, type Plan, type PlanStep } from '../../src/core/plan.js';
import { createLogger } from '../../src/log/logger.js';
import { renderRunApply } from '../../src/render/run.js';
import { renderTargetsPlan, type TargetOutcome } from '../../src/render/targets.js';
import { hostileText, RAW_UNSAFE, RUNNER_COMMAND, withoutOwnEscapes } from '../support/hostile-text.js';

const origin = { generatedAt: new Date('2026-11-26T00:00:00Z'), obsyncVersion: 'test', manifests: [] };
// Long enough to be folded over several lines (the text renderer lays out values over 80 columns).
const folded = fc.tuple(hostileText, hostileText).map(([a, b]) => `${a} ${'word '.repeat(20)}${b}`);
const data = fc.oneof(hostileText, folded);

const tile = fc.record({
  key: fc.constantFrom('p99', 'errors'),
  name: data,
  x: fc.nat(12),
  y: fc.nat(12),
  w: fc.constant(6),
  h: fc.constant(4),
});
const dashboardStep = fc
  .record({ id: data, before: fc.array(tile, { maxLength: 2 }), after: fc.array(tile, { maxLength: 2 }), name: data, note: data })
  .map(
    ({ id, before, after, name, note }): PlanStep => ({
      address: 'Dashboard/checkout',
      kind: 'Dashboard',
      name: 'checkout',
      action: 'update',
      reason: 'drifted',
      id,
      adopt: true,
      changes: [
        { path: 'name', before: name, after: 'Checkout' },
        { path: 'tiles', before: before, after: after },
      ],
      dependsOn: [],
      notes: [note],
      nonConvergent: [note],
      current: { name, tiles: before as unknown as Json },
      expected: { value: { name: 'Checkout', tiles: after as unknown as Json }, names: [] },
    }),
  );
const webhookDelete = fc.record({ id: data, url: data, cascadeName: data, cascadeId: data }).map(
  ({ id, url, cascadeName, cascadeId }): PlanStep => ({
    address: 'Webhook/ops',
    kind: 'Webhook',
    name: 'ops',
    action: 'delete',
    reason: 'not-declared',
    id,
    changes: [],
    dependsOn: [],
    current: { name: url, service: 'generic', description: url },
    cascade: [{ kind: 'Alert', id: cascadeId, name: cascadeName, owned: false, declared: false, object: { name: cascadeName } }],
  }),
);
const createStep = fc.record({ value: data, key: data }).map(
  ({ value, key }): PlanStep => ({
    address: 'SavedSearch/errors',
    kind: 'SavedSearch',
    name: 'errors',
    action: 'create',
    reason: 'missing',
    changes: [
      { path: 'where', after: value },
      { path: 'filters', after: [{ [key]: value }] },
    ],
    dependsOn: [],
    expected: { value: { name: value, where: value, filters: [{ [key]: value }] }, names: [] },
  }),
);
const diagnostic = fc
  .record({ message: data, path: data })
  .map(({ message, path }): Diagnostic => ({ severity: 'error', code: 'x', message, file: 'manifests/a.yaml', line: 3, col: 5, path }));

const plan = fc
  .record({
    steps: fc.array(fc.oneof(dashboardStep, webhookDelete, createStep), { minLength: 1, maxLength: 3 }),
    diagnostics: fc.array(diagnostic, { maxLength: 2 }),
    refused: fc.array(data, { maxLength: 1 }),
    blocked: fc.array(data, { maxLength: 1 }),
  })
  .map(
    ({ steps, diagnostics, refused, blocked }): Plan => ({
      formatVersion: 2,
      target: 'prod',
      variant: 'hosted',
      steps,
      summary: summarize(steps),
      prune: {
        requested: true,
        cascade: false,
        candidates: [],
        refused,
        blocked: blocked.map((reason) => ({ address: 'Dashboard/old', reason })),
      },
      forget: [],
      diagnostics,
      errored: diagnostics.length > 0,
    }),
  );
const outcomes = fc.tuple(plan, fc.option(data, { nil: undefined })).map(([p, error]): TargetOutcome[] =>
  error === undefined
    ? [{ target: 'prod', plan: p }]
    : [
        { target: 'prod', plan: p },
        { target: 'staging', error },
      ],
);

/** Lines obsync's text renderers start at column 0; anything else there would be data posing as obsync. */
const OWN_TEXT_LINE = new RegExp(
  String.raw`^(obsync will perform |No changes\. |Plan(?: \(\d+ targets\))?: |Prune refused |Prune kept |Forgetting |Targets: ` +
    String.raw`|Target 'staging' could not be planned: |── target |\d+ owned object|manifests\/a\.yaml:3:5: error: |Apply ` +
    String.raw`(complete|finished)|Prune skipped: |warning: |::error )`,
);

function checkCommon(out: string, annotations = 0): void {
  expect(withoutOwnEscapes(out)).not.toMatch(RAW_UNSAFE);
  const commands = out.split('\n').filter((line) => RUNNER_COMMAND.test(line));
  expect(commands).toHaveLength(annotations);
  for (const line of commands) expect(line).toMatch(/^::error file=manifests\/a\.yaml,line=3,col=5::/);
}

function checkText(out: string, annotations = 0): void {
  checkCommon(out, annotations);
  for (const line of withoutOwnEscapes(out).split('\n')) if (line !== '' && !/^\s/.test(line)) expect(line).toMatch(OWN_TEXT_LINE);
}

/**
 * `@name`, `#123`, `GH-1`, `owner/repo#1` and the bare URLs GFM links (`https://…`, `www.…`, `mailto:`) that GitHub would still act on:
 * outside code, after markdown's escapes are read.
 */
function liveReferences(md: string): string[] {
  const text = md
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, ' ')
    .replace(/<code>[\s\S]*?<\/code>/g, ' ')
    .replace(/\\`/g, "'")
    .replace(/(`+)[\s\S]*?\1/g, ' ')
    .replace(/\\(.)/g, '$1');
  return [
    ...text.matchAll(/(?:^|\W)(@[a-z0-9][a-z0-9-]*|(?:[\w.-]+\/[\w.-]+)?#\d+|GH-\d+|https?:\/\/\S|www\.\S|(?:mailto|xmpp):\S)/gi),
  ].map((m) => m[1] ?? '');
}

describe('output cannot be forged (property)', () => {
  it('text, with and without colour, and --output github', () => {
    fc.assert(
      fc.property(outcomes, fc.boolean(), (o, color) => {
        checkText(finalText(renderTargetsPlan(o, 'text', { color, origin })));
        const plans = o.flatMap((x) => ('plan' in x ? [x.plan] : []));
        const annotations = plans.flatMap((p) => p.diagnostics).map((d) => `${githubAnnotation(d)}\n`);
        checkText(finalText(renderTargetsPlan(o, 'text', { color: false, origin }) + annotations.join('')), annotations.length);
      }),
      { numRuns: 150 },
    );
  });

  it('markdown: no raw character, no command, no live mention or reference', () => {
    fc.assert(
      fc.property(outcomes, (o) => {
        const out = finalText(renderTargetsPlan(o, 'markdown', { color: false, origin }));
        checkCommon(out);
        expect(liveReferences(out)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('JSON stays the same JSON, with no raw character and no command', () => {
    fc.assert(
      fc.property(outcomes, (o) => {
        const json = renderTargetsPlan(o, 'json', { color: false, origin });
        const out = finalText(json);
        checkCommon(out);
        expect(JSON.parse(out)).toEqual(JSON.parse(json));
      }),
      { numRuns: 100 },
    );
  });

  it('the apply summary', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ path: data, message: data }), { minLength: 1, maxLength: 3 }), data, (results, skipped) => {
        const report: ApplyReport = {
          target: 'prod',
          results: results.map((r) => ({
            address: 'Dashboard/checkout',
            action: 'update',
            outcome: 'applied',
            message: r.message,
            nonConvergent: [{ path: r.path }],
            durationMs: 1,
          })),
          summary: { applied: results.length, failed: 0, refused: 0, skipped: 0, unchanged: 0 },
          pruneSkipped: skipped,
        };
        const run = { target: 'prod', plan: checkoutUpdate([]), apply: report } as unknown as Parameters<typeof renderRunApply>[0][number];
        checkText(finalText(renderRunApply([run], 'text', { color: true, origin: { ...origin, generatedAt: origin.generatedAt } })));
      }),
      { numRuns: 100 },
    );
  });

  it('logs, JSON lines and pretty', () => {
    fc.assert(
      fc.property(data, data, fc.constantFrom<'json' | 'pretty'>('json', 'pretty'), (message, field, format) => {
        const sink = new PassThrough();
        let out = '';
        sink.on('data', (c: Buffer) => (out += c.toString()));
        const logger = createLogger({ format, stream: sink, color: true });
        logger.warn({ detail: field, [field]: 1 }, message);
        logger.flush();
        checkCommon(out);
        if (format === 'json') expect(JSON.parse(out)).toMatchObject({ msg: message, detail: field });
        else expect(out.trimEnd().split('\n')).toHaveLength(1);
      }),
      { numRuns: 150 },
    );
  });
});

describe('examples a reviewer would meet', () => {
  it('a folded value with an escape sequence, a server error with a forged summary, and @everyone', () => {
    const name = `\u001b[2K\u001b[1A${'x '.repeat(50)}\u0007`;
    const p = checkoutUpdate([{ path: 'name', before: name, after: 'Checkout @everyone #12' }]);
    const forged = 'HTTP 500 — oops\nPlan: 0 to create, 0 to update, 0 to delete, 0 unchanged.\n::add-mask::x';
    const o: TargetOutcome[] = [
      { target: 'prod', plan: p },
      { target: 'staging', error: forged },
    ];
    const text = finalText(renderTargetsPlan(o, 'text', { color: false, origin }));
    expect(text).toContain('\\u001b[2K');
    expect(text).not.toContain('\u001b');
    expect(text.split('\n').filter((l) => l.startsWith('Plan'))).toHaveLength(1);
    expect(text).toContain("Target 'staging' could not be planned: HTTP 500 — oops\\nPlan: 0 to create");
    const md = finalText(renderTargetsPlan(o, 'markdown', { color: false, origin }));
    expect(md).toContain('<code>@everyone</code> <code>#12</code>');
  });
});

/** A plan of one update to Dashboard/checkout with these changes, no prune. */
function checkoutUpdate(changes: PlanStep['changes']): Plan {
  const steps: PlanStep[] = [
    {
      address: 'Dashboard/checkout',
      kind: 'Dashboard',
      name: 'checkout',
      action: 'update',
      reason: 'drifted',
      id: 'd1',
      changes,
      dependsOn: [],
    },
  ];
  return {
    formatVersion: 2,
    target: 'prod',
    variant: 'hosted',
    steps,
    summary: summarize(steps),
    prune: { requested: false, cascade: false, candidates: [], refused: [], blocked: [] },
    forget: [],
    diagnostics: [],
    errored: false,
  };
}
