/**
 * Issue 53, item 6: one service, one owner. Two targets write to one service, each with its own
 * inventory; whatever they declare (overlapping names, hand-made lookalikes), in whatever order
 * they apply, import, adopt an export or prune, an object one of them owns is never taken over by
 * the other — not by natural key, not by import, not by export --adopt — and never deleted by the
 * other's prune, even where an older obsync had recorded it in both. Each refusal names the owner.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../src/core/errors.js';
import { OwnersElsewhere } from '../../src/core/owners-elsewhere.js';
import { addressOf } from '../../src/core/plan.js';
import type { ServicePort } from '../../src/core/ports.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { bindings } from '../../src/export/adopt.js';
import { importEntry } from '../../src/export/import.js';
import { memoryInventory, type MemoryInventory } from '../../src/inventory/memory-store.js';
import { dashboard as dashboardKind } from '../../src/kinds/dashboard/definition.js';
import { specSchemas } from '../../src/kinds/manifest.js';
import { collectionOf } from '../../src/kinds/registry.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

type Who = 'a' | 'b';
const NAMES = ['x', 'y', 'z'] as const;

type Op =
  | { op: 'apply'; who: Who; names: string[]; prune: boolean }
  | { op: 'import'; who: Who; name: string; pick: number }
  | { op: 'adopt-export'; who: Who }
  | { op: 'hand-made'; name: string }
  /** An entry an older obsync recorded: `who` owns, in its inventory too, an object the other owns. */
  | { op: 'legacy-double'; who: Who; pick: number };

const who = fc.constantFrom<Who>('a', 'b');
const name = fc.constantFrom(...NAMES);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('apply' as const), who, names: fc.subarray([...NAMES]), prune: fc.boolean() }) },
  fc.record({ op: fc.constant('import' as const), who, name, pick: fc.nat(20) }),
  fc.record({ op: fc.constant('adopt-export' as const), who }),
  fc.record({ op: fc.constant('hand-made' as const), name }),
  fc.record({ op: fc.constant('legacy-double' as const), who, pick: fc.nat(20) }),
);

function declared(n: string): DesiredResource {
  return {
    kind: 'Dashboard',
    name: n,
    address: addressOf('Dashboard', n),
    labels: {},
    spec: specSchemas.Dashboard.parse({ name: `Board ${n}`, tiles: [] }),
    source: { file: 'one.yaml', line: 1, col: 1 },
  };
}

class Pair {
  readonly domain = createObservabilityDomain();
  readonly port: Record<Who, ServicePort> = {
    a: inProcessPort(this.domain, 'self-hosted', 'a'),
    b: inProcessPort(this.domain, 'self-hosted', 'b'),
  };
  readonly inventory: Record<Who, MemoryInventory> = { a: memoryInventory('a'), b: memoryInventory('b') };
  /** Addresses written as an older obsync would have (owned by both): left out of the one-owner check. */
  readonly legacy: Record<Who, Set<string>> = { a: new Set(), b: new Set() };
  readonly refusals: string[] = [];

  elsewhere(me: Who): OwnersElsewhere {
    const other = me === 'a' ? 'b' : 'a';
    return new OwnersElsewhere(me, [{ target: other, maybe: false, entries: this.inventory[other].entries() }]);
  }

  owned(me: Who): Map<string, string> {
    return new Map(
      this.inventory[me]
        .entries()
        .filter((e) => e.status === 'owned' && e.id !== null && !this.legacy[me].has(`${e.kind}/${e.name}`))
        .map((e) => [e.id ?? '', `${e.kind}/${e.name}`]),
    );
  }

  async dashboards(): Promise<{ id: string; name: string }[]> {
    return (await collectionOf(this.port.a, 'Dashboard').list()).map((d) => ({ id: d.id, name: d.name }));
  }

  async run(op: Op): Promise<void> {
    const all = await this.dashboards();
    const picked = (pick: number) => all[pick % Math.max(all.length, 1)];
    switch (op.op) {
      case 'hand-made':
        await collectionOf(this.port.a, 'Dashboard').create({ name: `Board ${op.name}`, tiles: [] });
        return;
      case 'apply': {
        const report = await reconcile({
          port: this.port[op.who],
          inventory: this.inventory[op.who],
          desired: op.names.map(declared),
          selection: SELECT_ALL,
          prune: op.prune,
          allowEmptyKinds: ['Dashboard'],
          maxDeletes: 100,
          concurrency: 2,
          mode: 'apply',
          ownersElsewhere: this.elsewhere(op.who),
        });
        this.refusals.push(...report.plan.diagnostics.map((d) => d.message), ...report.plan.prune.blocked.map((b) => b.reason));
        return;
      }
      case 'import': {
        const target = picked(op.pick);
        if (!target) return;
        try {
          const outcome = importEntry({
            def: dashboardKind,
            name: op.name,
            id: target.id,
            objects: () => all.map((d) => ({ ...d, tiles: [] })),
            served: ['Dashboard'],
            entries: this.inventory[op.who].entries(),
            declared: true,
            now: new Date(),
            elsewhere: this.elsewhere(op.who),
          });
          if (!outcome.already) await this.inventory[op.who].put(outcome.entry);
        } catch (err) {
          if (!(err instanceof PlanError)) throw err;
          this.refusals.push(err.message);
        }
        return;
      }
      case 'adopt-export': {
        // As export names them: an object this target owns under its own name, any other after its id.
        const mine = new Map(this.inventory[op.who].entries().map((e) => [e.id, e.name]));
        const exported = all.map((d) => {
          const n = mine.get(d.id) ?? `d-${d.id}`;
          return { kind: 'Dashboard' as const, name: n, address: addressOf('Dashboard', n), id: d.id, naturalKey: '' };
        });
        try {
          for (const entry of bindings(exported, this.inventory[op.who], new Date(), this.elsewhere(op.who)))
            await this.inventory[op.who].put(entry);
        } catch (err) {
          if (!(err instanceof PlanError)) throw err;
          this.refusals.push(err.message);
        }
        return;
      }
      case 'legacy-double': {
        const other = op.who === 'a' ? 'b' : 'a';
        const theirs = [...this.owned(other)];
        const [id] = theirs[op.pick % Math.max(theirs.length, 1)] ?? [];
        if (id === undefined || this.inventory[op.who].entries().some((e) => e.id === id)) return;
        const address = `Dashboard/legacy-${id}`;
        this.legacy[op.who].add(address);
        await this.inventory[op.who].put({ kind: 'Dashboard', name: `legacy-${id}`, id, status: 'owned', naturalKey: '', updatedAt: '' });
      }
    }
  }
}

describe('two targets on one service', () => {
  it('never own one object both, never take over or prune what the other owns, and name the owner (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 2, maxLength: 8 }), async (ops) => {
        const pair = new Pair();
        for (const op of ops) {
          const before = { a: pair.owned('a'), b: pair.owned('b') };
          await pair.run(op);
          const ids = new Set((await pair.dashboards()).map((d) => d.id));
          const a = pair.owned('a');
          const b = pair.owned('b');
          for (const id of a.keys()) expect(b.has(id), `${id} owned by both a (${a.get(id)}) and b (${b.get(id)})`).toBe(false);
          // What the other target owned is still there after this target's run (it may have been deleted by its owner only).
          if (op.op === 'apply') {
            const other = op.who === 'a' ? before.b : before.a;
            for (const id of other.keys()) expect(ids.has(id), `${op.who} deleted ${id}, which the other target owns`).toBe(true);
          }
        }
        for (const message of pair.refusals.filter((m) => /is owned by target/.test(m)))
          expect(message).toMatch(/is owned by target '[ab]' \(as Dashboard\/[\w-]+\), which writes to the same service/);
      }),
      {
        numRuns: 60,
        examples: [
          [
            [
              { op: 'apply', who: 'a', names: ['x'], prune: false },
              { op: 'apply', who: 'b', names: ['x'], prune: true },
            ],
          ],
        ],
      },
    );
  });

  it("the red team repro: the second target refuses to adopt the first one's dashboard, naming it, and its prune leaves it", async () => {
    const pair = new Pair();
    await pair.run({ op: 'apply', who: 'a', names: ['x'], prune: false });
    const owned = pair.inventory.a.get('Dashboard/x')?.id ?? '';
    await pair.run({ op: 'apply', who: 'b', names: ['x'], prune: true });
    expect(pair.refusals.join('\n')).toContain(
      `dashboard ${owned} is owned by target 'a' (as Dashboard/x), which writes to the same service: one service has one owner, so ` +
        `target 'b' does not take it over`,
    );
    expect(pair.inventory.b.entries()).toEqual([]);
    await pair.run({ op: 'apply', who: 'b', names: [], prune: true });
    expect((await pair.dashboards()).map((d) => d.id)).toEqual([owned]);
  });
});
