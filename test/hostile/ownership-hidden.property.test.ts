/**
 * Issue 50, item 6: a server that hides an object from its list and answers a create with that
 * object's id does not get it owned on its word. The id is new to the run (the list hid it), so
 * the proof rests on reading the object back by its id: it is owned only when what the service
 * holds at that id is, field for field, what the manifest declares — the one case no client can
 * tell from a create, and the limit docs/ownership.md states.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LiveObject } from '../../src/core/live.js';
import type { CollectionPort, ServicePort } from '../../src/core/ports.js';
import type { DesiredResource } from '../../src/core/resource.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory, type MemoryInventory } from '../../src/inventory/memory-store.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { collectionOf, type AnyKind } from '../../src/kinds/registry.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

/** The hidden object, relative to what the manifest declares. */
type Relation = 'other-name' | 'same-name-other-tiles' | 'identical';

interface Lie {
  relation: Relation;
  /** The create's answer: the body sent with the hidden id, or the hidden object as it is. */
  answer: 'echo' | 'as-is';
  /** The GET by id hides it too. */
  hideGet: boolean;
  /** The service also really creates what was sent. */
  commit: boolean;
}

const declared: DesiredResource = {
  kind: 'Dashboard',
  name: 'checkout',
  address: 'Dashboard/checkout',
  labels: {},
  spec: dashboardSpecSchema.parse({
    name: 'Checkout',
    tiles: [
      { key: 'p99', name: 'p99', x: 0, y: 0, w: 12, h: 4, config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'count' }] } },
    ],
  }),
  source: { file: 'hidden.yaml', line: 1, col: 1 },
};

function request(port: ServicePort, inventory: MemoryInventory) {
  return { port, inventory, desired: [declared], selection: SELECT_ALL, prune: false, maxDeletes: 10 };
}

async function apply(port: ServicePort, inventory: MemoryInventory) {
  return applyPlanned(await makePlan(request(port, inventory)), { port, inventory, concurrency: 1 });
}

/** The sandbox behind a service that hides `hidden` from its lists (and GETs, if told) and answers the next dashboard create with it. */
async function hidingService(lie: Lie): Promise<{ port: ServicePort; hidden: string; created: string[] }> {
  const inner = inProcessPort(createObservabilityDomain({ seed: 'demo' }));
  const boards = collectionOf(inner, 'Dashboard');
  // An identical object is one obsync itself made for another inventory (the exact body it sends).
  const hidden =
    lie.relation === 'identical'
      ? ((await apply(inner, memoryInventory('elsewhere'))).results[0]?.id ?? '')
      : (await boards.create({ name: lie.relation === 'other-name' ? 'Made by hand' : 'Checkout', tiles: [] })).id;
  const created: string[] = [];
  const collection = (kind: AnyKind): CollectionPort<LiveObject> | null => {
    const real = inner.collection(kind);
    if (!real || kind !== 'Dashboard') return real;
    return {
      ...real,
      list: async (o) => (await real.list(o)).filter((x) => x.id !== hidden),
      get: async (id, o) => (lie.hideGet && id === hidden ? null : real.get(id, o)),
      create: async (body, o) => {
        const made = lie.commit ? await real.create(body, o) : null;
        if (made) created.push(made.id);
        if (lie.answer === 'echo') return { ...(made ?? body), id: hidden };
        return (await real.get(hidden, o)) ?? { ...body, id: hidden };
      },
    };
  };
  return { port: { ...inner, collection }, hidden, created };
}

const lieArb = fc.record({
  relation: fc.constantFrom<Relation>('other-name', 'same-name-other-tiles', 'identical'),
  answer: fc.constantFrom<'echo' | 'as-is'>('echo', 'as-is'),
  hideGet: fc.boolean(),
  commit: fc.boolean(),
});

describe('a create answered with the id of an object the list hid', () => {
  it('owns that id only when the object read back by it is what the manifest declares (property)', async () => {
    await fc.assert(
      fc.asyncProperty(lieArb, async (lie) => {
        const { port, hidden } = await hidingService(lie);
        const inventory = memoryInventory('t');
        const step = (await apply(port, inventory)).results.find((r) => r.address === declared.address);
        const owned = inventory.get(declared.address)?.id === hidden;
        expect(owned, JSON.stringify(lie)).toBe(lie.relation === 'identical' && !lie.hideGet);
        if (!owned) {
          expect(step?.outcome).toBe('failed');
          expect(step?.code).toBe('OWNERSHIP_UNPROVEN');
          expect(inventory.get(declared.address)).toBeUndefined();
        }
      }),
      { numRuns: 40 },
    );
  });

  it(
    'the red team repro: a hand-made dashboard hidden from the ' + 'list, the create echoed with its id: failed, nothing recorded',
    async () => {
      const { port, hidden, created } = await hidingService({ relation: 'other-name', answer: 'echo', hideGet: false, commit: true });
      const inventory = memoryInventory('t');
      const step = (await apply(port, inventory)).results[0];
      expect(step?.message).toMatch(
        new RegExp(
          `cannot prove it created the object, so it records nothing: dashboard ` +
            `${hidden}, read back, has the natural key name:Made by hand`,
        ),
      );
      expect(step?.message).toContain(`the create may have made dashboard ${created[0] ?? '?'}`);
      expect(inventory.entries()).toEqual([]);
    },
  );
});
