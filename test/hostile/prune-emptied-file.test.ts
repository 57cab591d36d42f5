/**
 * Issue 50, item 6: an empty manifest file (or one holding only `---`, or only comments) pruned
 * what it declared without a word. The inventory records each owned object's file; a file that
 * declared owned objects and declares nothing now is named in a warning with those objects, and
 * prune refuses while it stays empty. Deleting the file is the way to delete them.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/core/plan.js';
import { fakeIO, runInProcess } from '../support/cli-io.js';
import { alertYaml, dashboardYaml, TrustHarness } from '../support/reconcile.js';

let h: TrustHarness;

const A = `${dashboardYaml('alpha', 'Alpha', [{ key: 'lat' }])}---\n${alertYaml('alpha-slow', 'alpha', 'lat')}`;
const B = `${dashboardYaml('beta', 'Beta', [{ key: 'lat' }])}---\n${alertYaml('beta-slow', 'beta', 'lat')}`;

beforeAll(async () => {
  h = await TrustHarness.start();
  h.manifests({ 'a.yaml': A, 'b.yaml': B });
  const applied = await h.run({ files: true });
  expect(applied.apply?.summary.failed).toBe(0);
});
afterAll(() => h.close());

const warnings = (plan: Plan) => plan.diagnostics.filter((d) => d.code === 'emptied-file');
const deletes = (plan: Plan) => plan.steps.filter((s) => s.action === 'delete').map((s) => s.address);

/** Text that holds no document: nothing, `---` separators, comments, blank lines. */
const nothing = fc
  .array(fc.constantFrom('---', '# a comment', '', '   ', '--- # a comment'), { maxLength: 6 })
  .map((lines) => lines.map((l) => `${l}\n`).join(''));

describe('a manifest file that declares nothing any more', () => {
  it('is named in a warning with the owned objects it declared; prune refuses, nothing is deleted', async () => {
    const file = join(h.dir, 'manifests/a.yaml');
    await fc.assert(
      fc.asyncProperty(nothing, fc.boolean(), async (text, prune) => {
        writeFileSync(file, text);
        const { plan } = await h.run({ mode: 'plan', prune, files: true });
        const [warning, ...more] = warnings(plan);
        expect(more).toEqual([]);
        expect(warning).toMatchObject({ severity: 'warning', code: 'emptied-file', file: 'manifests/a.yaml' });
        expect(warning?.message).toContain('but it declared 2 object(s) (Alert/alpha-slow, Dashboard/alpha), which obsync owns');
        expect(deletes(plan)).toEqual([]);
        if (prune)
          expect(plan.prune.refused).toEqual([expect.stringMatching(/^manifests\/a\.yaml declares nothing now .* refusing to delete/)]);
      }),
      { numRuns: 12 },
    );
    const applied = await h.run({ prune: true, files: true });
    expect(deletes(applied.plan)).toEqual([]);
    expect((await h.dashboards()).map((d) => d.name).sort()).toEqual(['Alpha', 'Beta']);
  });

  it('deleted, lets prune delete what it declared, without a warning', async () => {
    rmSync(join(h.dir, 'manifests/a.yaml'));
    const { plan } = await h.run({ mode: 'plan', prune: true, files: true });
    expect(warnings(plan)).toEqual([]);
    expect(deletes(plan).sort()).toEqual(['Alert/alpha-slow', 'Dashboard/alpha']);
    writeFileSync(join(h.dir, 'manifests/a.yaml'), A);
  });

  it('is said by `obsync plan --prune` as a warning and a refused prune', async () => {
    const dir = join(h.dir, 'cli');
    const run = async (args: string[]) => {
      const f = fakeIO(dir);
      return { code: await runInProcess(f.io, args), out: f.out(), err: f.err() };
    };
    mkdirSync(dir);
    cpSync(join(h.dir, 'manifests'), join(dir, 'manifests'), { recursive: true });
    expect((await run(['apply', 'manifests', '--auto-approve'])).code).toBe(0);
    writeFileSync(join(dir, 'manifests/a.yaml'), '---\n# emptied\n');
    const plan = await run(['plan', 'manifests', '--prune']);
    expect(plan.out).toContain(
      'manifests/a.yaml: warning: declares nothing now (it is empty, or holds only `---` or comments), but it declared 2 object(s) ' +
        '(Alert/alpha-slow, Dashboard/alpha), which obsync owns',
    );
    expect(plan.out).toContain('Prune refused');
    expect(plan.out).toContain('manifests/a.yaml declares nothing now');
  });
});
