/**
 * Issue 27, through the engine on both API variants: renames declared in the manifests
 * (metadata.previousNames, tile previousKeys) move the live objects instead of re-creating them;
 * every refusal; rename detection, which says so and never guesses.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import type { Plan } from '../../src/core/plan.js';
import type { Variant } from '../../src/core/ports.js';
import type { WireAlert, WireDashboard } from '../../src/core/wire.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { afterRefactor, alertDoc, beforeRefactor, dashboardDoc, DISPLAY } from '../support/renames.js';
import { World } from '../support/world.js';
import { applyPlanned } from '../../src/engine/run.js';
import { parsePlanDocument, planDocument, renderPlanJson } from '../../src/render/plan-json.js';
import { renderPlansMarkdown } from '../../src/render/plan-markdown.js';

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close();
});
function world(variant: Variant): World {
  const w = new World(variant);
  worlds.push(w);
  return w;
}

const writes = (plan: Plan) => plan.steps.filter((s) => s.action !== 'noop').map((s) => `${s.action} ${s.address}`);
const codes = (ds: readonly Diagnostic[]) => ds.map((d) => d.code);

async function estate(w: World): Promise<{ dashboards: WireDashboard[]; alerts: WireAlert[] }> {
  return { dashboards: await collectionOf(w.port, 'Dashboard').list(), alerts: await collectionOf(w.port, 'Alert').list() };
}

describe.each(['self-hosted', 'hosted'] as const)('declared renames (%s)', (variant) => {
  it('moves a renamed dashboard, a renamed tile key and a renamed tile alert: no create or delete, the ids kept, the next plan empty', async () => {
    const w = world(variant);
    await w.apply(beforeRefactor());
    const before = await estate(w);
    const [board] = before.dashboards.filter((d) => d.name === DISPLAY);
    if (!board) throw new Error('no dashboard');
    const tileId = (name: string) => board.tiles.find((t) => t.name === name)?.id;

    const plan = await w.plan(afterRefactor(true), { prune: true });
    expect(plan.diagnostics).toEqual([]);
    expect(writes(plan)).toEqual(['update Dashboard/checkout-service']);
    const step = (address: string) => plan.steps.find((s) => s.address === address);
    expect(step('Dashboard/checkout-service')).toMatchObject({
      id: board.id,
      movedFrom: 'Dashboard/checkout',
      movedParts: [{ from: 'p99', to: 'latency' }],
      changes: [{ path: 'tiles.latency.name', before: 'p99 latency', after: 'Latency (p99)' }],
    });
    expect(step('Alert/checkout-latency-high')).toMatchObject({ action: 'noop', movedFrom: 'Alert/checkout-p99' });
    expect(step('Alert/checkout-errors')).toMatchObject({ action: 'noop' });
    expect(step('Alert/checkout-errors')?.movedFrom).toBeUndefined();
    expect(plan.summary).toMatchObject({ create: 0, delete: 0, move: 2 });
    expect(plan.prune.candidates).toEqual([]);

    const { report } = await w.apply(afterRefactor(true), { prune: true });
    expect(report.summary).toMatchObject({ failed: 0, refused: 0, skipped: 0 });
    expect(report.results.find((r) => r.address === 'Dashboard/checkout-service')).toMatchObject({
      outcome: 'applied',
      movedFrom: 'Dashboard/checkout',
      movedParts: [{ from: 'p99', to: 'latency' }],
    });

    const after = await estate(w);
    expect(after.dashboards.map((d) => d.id)).toEqual(before.dashboards.map((d) => d.id));
    const renamed = after.dashboards.find((d) => d.id === board.id);
    expect(renamed?.tiles.map((t) => [t.name, t.id])).toEqual([
      ['Latency (p99)', tileId('p99 latency')],
      ['Errors', tileId('Errors')],
    ]);
    expect(after.alerts.map((a) => [a.id, a.dashboardId, a.tileId]).sort()).toEqual(
      before.alerts.map((a) => [a.id, a.dashboardId, a.tileId]).sort(),
    );
    const owned = w.inventory.entries().map((e) => `${e.kind}/${e.name} ${e.id ?? ''}`);
    expect(owned.sort()).toEqual(
      [
        `Alert/checkout-errors ${before.alerts.find((a) => a.name === 'Checkout errors high')?.id ?? '?'}`,
        `Alert/checkout-latency-high ${before.alerts.find((a) => a.name === 'Checkout p99 high')?.id ?? '?'}`,
        `Dashboard/checkout-service ${board.id}`,
      ].sort(),
    );
    expect(w.inventory.get('Dashboard/checkout-service')?.tiles).toEqual({ latency: tileId('p99 latency'), errors: tileId('Errors') });

    const next = await w.plan(afterRefactor(true), { prune: true });
    expect(writes(next)).toEqual([]);
    expect(next.summary.move).toBe(0);
    expect(next.prune.candidates).toEqual([]);
    // The declarations are harmless now, and the plan says they can go.
    expect(codes(next.diagnostics).sort()).toEqual(['previous-key-done', 'previous-name-done', 'previous-name-done']);
    expect(next.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
    expect(next.diagnostics.find((d) => d.address === 'Dashboard/checkout-service' && d.code === 'previous-name-done')?.message).toMatch(
      /has nothing left to move on this target.*remove previousNames once every target has applied the rename/,
    );
  });

  it('shows the moves in the markdown of a pull-request comment and in the JSON plan', async () => {
    const w = world(variant);
    await w.apply(beforeRefactor());
    const plan = await w.plan(afterRefactor(true));
    const markdown = renderPlansMarkdown([plan]);
    expect(markdown).toContain('**Plan: 0 to create, 1 to update, 0 to delete, 2 to move, 2 unchanged.**');
    expect(markdown).toContain(
      '| 🟡 update | `Dashboard/checkout-service` | moved: Dashboard/checkout → Dashboard/checkout-service; moved: tile p99 → latency;',
    );
    expect(markdown).toContain(
      '| 🔵 move | `Alert/checkout-latency-high` | moved: Alert/checkout-p99 → Alert/checkout-latency-high (no change to the object) |',
    );
    expect(markdown).toContain('- moved: Dashboard/checkout → Dashboard/checkout-service\n- moved: tile p99 → latency\n');
    const doc = planDocument([plan], { generatedAt: new Date(0), obsyncVersion: 'test', manifests: [] });
    expect(doc.summary).toMatchObject({ create: 0, delete: 0, move: 2 });
    expect(doc.targets[0]?.applyable).toBe(true);
    expect(doc.targets[0]?.resource_changes.filter((c) => c.previous_address).map((c) => [c.previous_address, c.address])).toEqual([
      ['Dashboard/checkout', 'Dashboard/checkout-service'],
      ['Alert/checkout-p99', 'Alert/checkout-latency-high'],
    ]);
    // A saved plan carries the moves back to the applier.
    const saved = parsePlanDocument(renderPlanJson(doc), 'plan.json').plans[0];
    expect(saved?.steps.filter((s) => s.movedFrom).map((s) => s.movedFrom)).toEqual(['Dashboard/checkout', 'Alert/checkout-p99']);
    expect(saved?.summary.move).toBe(2);
  });

  it('refuses the step of a rename the state no longer allows (recorded elsewhere since the plan), and records nothing for it', async () => {
    const w = world(variant);
    await w.apply(beforeRefactor());
    const plan = await w.plan(afterRefactor(true));
    await w.inventory.move('Alert/checkout-p99', 'Alert/elsewhere', 'now');
    const report = await applyPlanned({ plan, secretValues: new Map() }, { port: w.port, inventory: w.inventory, concurrency: 2 });
    expect(report.results.find((r) => r.address === 'Alert/checkout-latency-high')).toMatchObject({
      outcome: 'refused',
      message: expect.stringMatching(
        /^the rename from Alert\/checkout-p99 could not be recorded: Alert\/checkout-p99 is not in the state/,
      ) as unknown,
    });
    expect(w.inventory.get('Alert/elsewhere')).toBeDefined();
    expect(w.inventory.get('Alert/checkout-latency-high')).toBeUndefined();
    expect(report.results.find((r) => r.address === 'Dashboard/checkout-service')).toMatchObject({
      outcome: 'applied',
      movedFrom: 'Dashboard/checkout',
    });
  });

  it('says a create looks like a rename when its display name is that of an owned object no manifest declares, and creates nothing silently', async () => {
    const w = world(variant);
    await w.apply(beforeRefactor());
    const plan = await w.plan(afterRefactor(false));
    const hints = plan.diagnostics.filter((d) => d.code === 'looks-like-rename');
    expect(hints.map((d) => [d.severity, d.message])).toEqual([
      [
        'warning',
        'Dashboard/checkout-service looks like a rename of Dashboard/checkout: add metadata.previousNames: [checkout] to keep the existing object (otherwise a new dashboard is created beside it)',
      ],
    ]);
    // Said, not guessed: the plan is what it would be without the hint.
    expect(plan.steps.find((s) => s.address === 'Dashboard/checkout-service')).toMatchObject({ action: 'create' });
    expect(plan.steps.some((s) => s.movedFrom !== undefined)).toBe(false);

    // With the dashboard's rename declared, the alert on it is matched: its own rename is detected next.
    const files = afterRefactor(false);
    files['services/checkout-service.yaml'] = dashboardDoc(
      'checkout-service',
      DISPLAY,
      [
        { key: 'latency', name: 'Latency (p99)', previousKeys: ['p99'] },
        { key: 'errors', name: 'Errors' },
      ],
      ['checkout'],
    );
    const second = await w.plan(files);
    expect(second.diagnostics.filter((d) => d.code === 'looks-like-rename').map((d) => d.message)).toEqual([
      'Alert/checkout-latency-high looks like a rename of Alert/checkout-p99: add metadata.previousNames: [checkout-p99] to keep the existing object (otherwise a new alert is created beside it)',
    ]);
  });
});

describe('refusals of declared renames', () => {
  const board = (name: string, display: string, previous?: string[]) => dashboardDoc(name, display, [{ key: 'a', name: 'A' }], previous);

  it('refuses a previous name that is still declared, at its position (validate and plan alike)', () => {
    const w = world('self-hosted');
    const { resources, diagnostics } = w.load({ 'a.yaml': board('old', 'Old'), 'b.yaml': board('new', 'New', ['old']) });
    const problem = diagnostics.find((d) => d.code === 'previous-name-declared');
    expect(problem).toMatchObject({ severity: 'error', path: 'metadata.previousNames[0]', address: 'Dashboard/new', line: 3 });
    expect(problem?.file).toMatch(/b\.yaml$/);
    expect(problem?.message).toMatch(/previous name 'old' is still declared \(Dashboard\/old at .*a\.yaml:1\)/);
    expect(resources.map((r) => r.address)).toEqual(['Dashboard/old']);
  });

  it('refuses a previous name two manifests claim: both are rejected, neither moves', () => {
    const w = world('self-hosted');
    const { resources, diagnostics } = w.load({ 'b.yaml': board('b', 'B', ['old']), 'c.yaml': board('c', 'C', ['old']) });
    expect(diagnostics.filter((d) => d.code === 'previous-name-claimed').map((d) => d.address)).toEqual(['Dashboard/b', 'Dashboard/c']);
    expect(diagnostics.find((d) => d.address === 'Dashboard/b')?.message).toMatch(
      /previous name 'old' is also claimed by Dashboard\/c \(.*c\.yaml:1\): only one object can take over Dashboard\/old/,
    );
    expect(resources).toEqual([]);
  });

  it('refuses tile previous keys that are still a key, or claimed by two tiles', () => {
    const w = world('self-hosted');
    const doc = (tiles: Parameters<typeof dashboardDoc>[2]) => ({ 'd.yaml': dashboardDoc('d', 'D', tiles) });
    const still = w.load(
      doc([
        { key: 'a', name: 'A', previousKeys: ['b'] },
        { key: 'b', name: 'B' },
      ]),
    );
    expect(still.diagnostics.map((d) => [d.path, d.message])).toEqual([
      [
        'spec.tiles[0].previousKeys[0]',
        "previous key 'b' is still the key of tiles[1]: a tile can only take over a key no tile has any more",
      ],
    ]);
    const twice = w.load(
      doc([
        { key: 'a', name: 'A', previousKeys: ['old'] },
        { key: 'b', name: 'B', previousKeys: ['old'] },
      ]),
    );
    expect(twice.diagnostics.map((d) => [d.path, d.message])).toEqual([
      ['spec.tiles[1].previousKeys[0]', "previous key 'old' is also claimed by tiles[0]: only one tile can take over the old tile"],
    ]);
  });

  it('names the new name when a reference still uses a renamed dashboard or tile key', () => {
    const w = world('self-hosted');
    const { diagnostics } = w.load({
      'd.yaml': dashboardDoc('new', 'New', [{ key: 'latency', name: 'L', previousKeys: ['p99'] }], ['old']),
      'a.yaml': alertDoc('on-old', 'old', 'p99', 'On old') + '---\n' + alertDoc('on-p99', 'new', 'p99', 'On p99'),
    });
    expect(diagnostics.map((d) => d.message)).toEqual([
      "dashboard 'old' was renamed: Dashboard/new lists it in metadata.previousNames; refer to 'new'",
      "tile 'p99' of Dashboard/new was renamed to 'latency' (its previousKeys list 'p99'); refer to 'latency'",
    ]);
  });

  it("refuses a previous name owned as another kind (an object no manifest declares), and creates nothing; another kind's declared namesake is no refusal", async () => {
    const w = world('self-hosted');
    await w.apply({ 'd.yaml': board('keep', 'Keep'), 'a.yaml': alertDoc('old', 'keep', 'a', 'Old alert') });
    const plan = await w.plan({ 'd.yaml': board('keep', 'Keep'), 'n.yaml': board('new', 'New', ['old']) });
    expect(plan.diagnostics.map((d) => [d.code, d.address])).toEqual([['previous-name-kind', 'Dashboard/new']]);
    expect(plan.diagnostics[0]?.message).toBe(
      "Dashboard/new: metadata.previousNames: 'old' is owned on this target as Alert/old, not as a Dashboard; a rename keeps the kind, so Dashboard/new cannot take it over; correct the name, or remove it from previousNames (to change the kind, delete the old object and create the new one)",
    );
    expect(writes(plan)).toEqual([]);
    expect(plan.errored).toBe(true);

    const namesake = await w.plan({
      'd.yaml': board('keep', 'Keep'),
      'a.yaml': alertDoc('old', 'keep', 'a', 'Old alert'),
      'n.yaml': board('new', 'New', ['old']),
    });
    expect(namesake.diagnostics).toEqual([]);
    expect(writes(namesake)).toEqual(['create Dashboard/new']);
  });

  it('refuses a rename onto a name that already owns another object, and two previous names owned at once', async () => {
    const w = world('hosted');
    await w.apply({ 'a.yaml': board('a', 'A'), 'b.yaml': board('b', 'B'), 'c.yaml': board('c', 'C') });
    const occupied = await w.plan({ 'b.yaml': board('b', 'B', ['a']), 'c.yaml': board('c', 'C') });
    expect(occupied.diagnostics.map((d) => d.code)).toEqual(['previous-name-occupied']);
    expect(occupied.diagnostics[0]?.message).toMatch(
      /^Dashboard\/b: metadata\.previousNames: Dashboard\/b already owns an object \(id \w+\), so it cannot also take over Dashboard\/a \(id \w+\); remove 'a' from previousNames, or `obsync state rm Dashboard\/b` first/,
    );
    const ambiguous = await w.plan({ 'n.yaml': board('n', 'N', ['a', 'b']), 'c.yaml': board('c', 'C') });
    expect(ambiguous.diagnostics.map((d) => d.code)).toEqual(['previous-name-ambiguous']);
    expect(ambiguous.diagnostics[0]?.message).toMatch(/Dashboard\/a \(id \w+\) and Dashboard\/b \(id \w+\) are all owned on this target/);
    for (const p of [occupied, ambiguous]) {
      expect(writes(p)).toEqual([]);
      expect(p.steps.some((s) => s.movedFrom)).toBe(false);
    }
  });
});

describe('rename detection', () => {
  const title = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,11}$/);

  it('never triggers for genuinely different objects (different titles), always for the same title', async () => {
    await fc.assert(
      fc.asyncProperty(title, title, async (oldTitle, newTitle) => {
        const w = world('self-hosted');
        try {
          await w.apply({ 'old.yaml': dashboardDoc('old', JSON.stringify(oldTitle), [{ key: 'a', name: 'A' }]) });
          const plan = await w.plan({ 'new.yaml': dashboardDoc('new', JSON.stringify(newTitle), [{ key: 'a', name: 'A' }]) });
          const hints = plan.diagnostics.filter((d) => d.code === 'looks-like-rename');
          expect(hints.length).toBe(oldTitle === newTitle ? 1 : 0);
          expect(writes(plan)).toEqual(['create Dashboard/new']);
        } finally {
          worlds.splice(worlds.indexOf(w), 1);
          await w.close();
        }
      }),
      {
        numRuns: 30,
        examples: [
          ['Checkout', 'Checkout'],
          ['Checkout', 'Checkout v2'],
        ],
      },
    );
  });
});

describe('renames, property', () => {
  const estateArb = fc
    .array(
      fc.record({
        tiles: fc.integer({ min: 1, max: 3 }),
        alerts: fc.integer({ min: 0, max: 2 }),
        rename: fc.boolean(),
        renameTile: fc.boolean(),
        renameTileTitle: fc.boolean(),
        renameAlert: fc.boolean(),
      }),
      { minLength: 1, maxLength: 4 },
    )
    .map((boards) => boards.map((b, i) => ({ ...b, index: i })));

  it('any mix of declared renames of dashboards, tile keys and alerts plans no create or delete, keeps every id, and converges', async () => {
    await fc.assert(
      fc.asyncProperty(estateArb, fc.constantFrom<Variant>('self-hosted', 'hosted'), async (boards, variant) => {
        const w = world(variant);
        try {
          const manifests = (renamed: boolean) => {
            const files: Record<string, string> = {};
            for (const b of boards) {
              const name = renamed && b.rename ? `board-${b.index}-renamed` : `board-${b.index}`;
              const tiles = Array.from({ length: b.tiles }, (_, t) => {
                const moved = renamed && b.renameTile && t === 0;
                return {
                  key: moved ? `k${t}-new` : `k${t}`,
                  name: moved && b.renameTileTitle ? `Tile ${t} renamed` : `Tile ${t}`,
                  ...(moved ? { previousKeys: [`k${t}`] } : {}),
                };
              });
              const docs = [dashboardDoc(name, `Board ${b.index}`, tiles, renamed && b.rename ? [`board-${b.index}`] : undefined)];
              for (let a = 0; a < b.alerts; a += 1) {
                const tile = tiles[a % tiles.length]?.key ?? 'k0';
                const alertName = renamed && b.renameAlert ? `alert-${b.index}-${a}-renamed` : `alert-${b.index}-${a}`;
                docs.push(
                  alertDoc(
                    alertName,
                    name,
                    tile,
                    `Alert ${b.index} ${a}`,
                    renamed && b.renameAlert ? [`alert-${b.index}-${a}`] : undefined,
                  ),
                );
              }
              files[`b${b.index}.yaml`] = docs.join('---\n');
            }
            return files;
          };
          await w.apply(manifests(false));
          const before = await estate(w);
          const tilesBefore = before.dashboards.flatMap((d) => d.tiles.map((t) => t.id)).sort();

          const plan = await w.plan(manifests(true), { prune: true });
          expect(plan.diagnostics).toEqual([]);
          expect(plan.steps.filter((s) => s.action === 'create' || s.action === 'delete')).toEqual([]);
          const expectedMoves = boards.filter((b) => b.rename).length + boards.reduce((n, b) => n + (b.renameAlert ? b.alerts : 0), 0);
          expect(plan.steps.filter((s) => s.movedFrom !== undefined).length).toBe(expectedMoves);
          expect(plan.steps.flatMap((s) => s.movedParts ?? []).length).toBe(boards.filter((b) => b.renameTile).length);

          const { report } = await w.apply(manifests(true), { prune: true });
          expect(report.summary).toMatchObject({ failed: 0, refused: 0, skipped: 0 });
          const after = await estate(w);
          expect(after.dashboards.map((d) => d.id).sort()).toEqual(before.dashboards.map((d) => d.id).sort());
          expect(after.dashboards.flatMap((d) => d.tiles.map((t) => t.id)).sort()).toEqual(tilesBefore);
          expect(after.alerts.map((a) => `${a.id} ${a.tileId ?? ''}`).sort()).toEqual(
            before.alerts.map((a) => `${a.id} ${a.tileId ?? ''}`).sort(),
          );
          const next = await w.plan(manifests(true), { prune: true });
          expect(writes(next)).toEqual([]);
          expect(next.summary.move).toBe(0);
        } finally {
          worlds.splice(worlds.indexOf(w), 1);
          await w.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
