/**
 * Issue 24, item 2: ownership is proven, never taken from the service's word. A service that
 * answers creates with the id of an object that already existed (hand-made, owned by obsync, of
 * another kind, created by another step of the run), with another name, or loses the answer,
 * never makes obsync own an object it did not create — through the answer, the lost-response
 * re-list or the update-404 re-create — and prune never deletes one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AmbiguousWriteError } from '../../src/core/errors.js';
import type { InventoryEntry } from '../../src/core/inventory.js';
import type { LiveObject } from '../../src/core/live.js';
import type { AdoptPolicy } from '../../src/core/plan.js';
import type { CollectionPort, ServicePort } from '../../src/core/ports.js';
import type { DesiredResource } from '../../src/core/resource.js';
import type { JsonObject } from '../../src/core/wire.js';
import { applyPlanned, makePlan } from '../../src/engine/run.js';
import { SELECT_ALL } from '../../src/engine/selection.js';
import { memoryInventory, type MemoryInventory } from '../../src/inventory/memory-store.js';
import { alertSpecSchema } from '../../src/kinds/alert/schema.js';
import { dashboard } from '../../src/kinds/dashboard/definition.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { collectionOf, type AnyKind } from '../../src/kinds/registry.js';
import { createObservabilityDomain } from '../../src/sandbox/domain/index.js';
import { inProcessPort } from '../../src/sandbox/in-process-port.js';

/** How the service answers one create. `commit`: whether it really creates the object it was asked for. */
type Answer =
  | { kind: 'honest' }
  | { kind: 'handmade'; commit: boolean }
  | { kind: 'owned'; commit: boolean }
  | { kind: 'other-kind'; commit: boolean }
  | { kind: 'earlier-create'; commit: boolean }
  | { kind: 'renamed' }
  | { kind: 'lost'; commit: boolean };

const answerArb: fc.Arbitrary<Answer> = fc.oneof(
  fc.constant({ kind: 'honest' as const }),
  fc.record({ kind: fc.constant('handmade' as const), commit: fc.boolean() }),
  fc.record({ kind: fc.constant('owned' as const), commit: fc.boolean() }),
  fc.record({ kind: fc.constant('other-kind' as const), commit: fc.boolean() }),
  fc.record({ kind: fc.constant('earlier-create' as const), commit: fc.boolean() }),
  fc.constant({ kind: 'renamed' as const }),
  fc.record({ kind: fc.constant('lost' as const), commit: fc.boolean() }),
);

/**
 * The real in-process sandbox behind a service that answers creates as `script` says (honestly
 * once the script runs out). Records the ids it really created for obsync.
 */
class HostileService {
  readonly createdForObsync = new Set<string>();
  readonly port: ServicePort;
  /** Ids a lie may name: hand-made objects, obsync's owned ones, another kind's, this run's earlier creates. */
  handmade: string[] = [];
  owned: () => string[] = () => [];
  otherKind: string[] = [];
  readonly #answered: string[] = [];

  constructor(
    readonly inner: ServicePort,
    private readonly script: Answer[],
  ) {
    const collection = (kind: AnyKind): CollectionPort<LiveObject> | null => {
      const real = inner.collection(kind);
      return real ? { ...real, create: (body, o) => this.#create(real, body, o) } : null;
    };
    this.port = { ...inner, collection };
  }

  async #create(real: CollectionPort<LiveObject>, body: JsonObject, o?: { signal?: AbortSignal }): Promise<LiveObject> {
    const answer = this.script.shift() ?? { kind: 'honest' };
    const commit = answer.kind === 'honest' || answer.kind === 'renamed' || answer.commit;
    const made = commit ? await real.create(body, o) : null;
    if (made) this.createdForObsync.add(made.id);
    const mirror: LiveObject = made ?? { ...body, id: 'never-created' };
    const lie = (id: string | undefined): LiveObject => ({ ...mirror, id: id ?? mirror.id });
    switch (answer.kind) {
      case 'honest':
        return this.#answer(mirror);
      case 'handmade':
        return this.#answer(lie(this.handmade[0]));
      case 'owned':
        return this.#answer(lie(this.owned()[0]));
      case 'other-kind':
        return this.#answer(lie(this.otherKind[0]));
      case 'earlier-create':
        return this.#answer(lie(this.#answered.at(-1)));
      case 'renamed':
        return this.#answer({ ...mirror, name: `${String((mirror as { name?: unknown }).name)} (renamed)` } as LiveObject);
      case 'lost':
        throw new AmbiguousWriteError({ method: 'POST', path: '/api/v2/...', status: 0, retryable: false });
    }
  }

  #answer(live: LiveObject): LiveObject {
    this.#answered.push(live.id);
    return live;
  }
}

const at = { file: 'gen.yaml', line: 1, col: 1 };

function dashboardRes(name: string, display: string): DesiredResource {
  const spec = dashboardSpecSchema.parse({
    name: display,
    tiles: [
      {
        key: 'lat',
        name: 'Latency',
        x: 0,
        y: 0,
        w: 12,
        h: 4,
        config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'avg', valueExpression: 'Duration' }] },
      },
    ],
  });
  return { kind: 'Dashboard', name, address: `Dashboard/${name}`, labels: {}, spec, source: at };
}

function alertRes(name: string, dashboard: string): DesiredResource {
  const spec = alertSpecSchema.parse({
    dashboard,
    tile: 'lat',
    threshold: 5,
    thresholdType: 'above',
    interval: '5m',
    channel: { type: 'webhook', webhook: 'ops-slack' },
    name: `alert ${name}`,
  });
  return { kind: 'Alert', name, address: `Alert/${name}`, labels: {}, spec, source: at };
}

interface Estate {
  service: HostileService;
  inventory: MemoryInventory;
  /** Every id on the service before the hostile apply (hand-made, seeded, owned). */
  before: Set<string>;
  ownedBefore: Set<string>;
  handmade: string[];
  anchor: DesiredResource[];
}

/** A service with hand-made dashboards and an alert, and an anchor dashboard obsync created honestly. */
async function estate(script: Answer[], handmadeCount: number): Promise<Estate> {
  const inner = inProcessPort(createObservabilityDomain());
  const service = new HostileService(inner, script);
  const dashboards = collectionOf(inner, 'Dashboard');
  const handmade: string[] = [];
  for (let i = 0; i < handmadeCount; i++) handmade.push((await dashboards.create({ name: `Hand made ${i}`, tiles: [] })).id);
  const inventory = memoryInventory('t');
  const anchor = [dashboardRes('anchor', 'Anchor')];
  const first = await applyPlanned(await makePlan(request(inner, inventory, anchor, 'by-name')), {
    port: inner,
    inventory,
    concurrency: 2,
  });
  expect(first.summary.failed).toBe(0);
  const webhooks = await collectionOf(inner, 'Webhook').list();
  service.handmade = handmade;
  service.owned = () => inventory.entries().flatMap((e) => (e.id ? [e.id] : []));
  service.otherKind = webhooks.map((w) => w.id);
  const before = new Set<string>();
  for (const kind of ['Dashboard', 'Alert', 'Webhook', 'Source', 'SavedSearch', 'Connection'] as const)
    for (const o of (await inner.collection(kind)?.list()) ?? []) before.add(o.id);
  return { service, inventory, before, ownedBefore: new Set(service.owned()), handmade, anchor };
}

function request(port: ServicePort, inventory: MemoryInventory, desired: DesiredResource[], adopt: AdoptPolicy, prune = false) {
  return { port, inventory, desired, selection: SELECT_ALL, prune, maxDeletes: 100, adopt };
}

function ownedIds(entries: readonly InventoryEntry[]): Set<string> {
  return new Set(entries.flatMap((e) => (e.status === 'owned' && e.id ? [e.id] : [])));
}

async function allIds(port: ServicePort): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const kind of ['Dashboard', 'Alert', 'Webhook', 'Source', 'SavedSearch', 'Connection'] as const)
    for (const o of (await port.collection(kind)?.list()) ?? []) ids.add(o.id);
  return ids;
}

describe('a create answered with an id obsync did not make', () => {
  it.each([
    ['a hand-made dashboard', { kind: 'handmade', commit: true }],
    ['a dashboard obsync owns', { kind: 'owned', commit: false }],
    ['an object of another kind', { kind: 'other-kind', commit: false }],
  ] as const)('(%s) fails the step, records nothing, and names what the create made', async (_what, answer) => {
    const e = await estate([answer], 1);
    const desired = [...e.anchor, dashboardRes('new', 'New one')];
    const report = await applyPlanned(await makePlan(request(e.service.port, e.inventory, desired, 'by-name')), {
      port: e.service.port,
      inventory: e.inventory,
      concurrency: 2,
    });
    const step = report.results.find((r) => r.address === 'Dashboard/new');
    expect(step?.outcome).toBe('failed');
    expect(step?.message).toMatch(/obsync cannot prove it created the object, so it records nothing: the service answered with id /);
    expect(e.inventory.get('Dashboard/new')).toBeUndefined();
    const made = [...e.service.createdForObsync];
    if (answer.commit) {
      expect(made).toHaveLength(1);
      expect(step?.message).toContain(`the create may have made dashboard ${made[0] ?? ''}`);
    } else expect(step?.message).toContain('no new dashboard with that natural key');
    // The next run makes the object the manifest declares (or adopts the one the lie hid), and owns nothing that existed.
    const again = await applyPlanned(await makePlan(request(e.service.port, e.inventory, desired, 'by-name')), {
      port: e.service.port,
      inventory: e.inventory,
      concurrency: 2,
    });
    expect(again.summary.failed).toBe(0);
    for (const id of ownedIds(e.inventory.entries())) if (!e.ownedBefore.has(id)) expect(e.before.has(id)).toBe(false);
  });

  it('with another name than was sent: fails the step and records nothing', async () => {
    const e = await estate([{ kind: 'renamed' }], 0);
    const desired = [...e.anchor, dashboardRes('new', 'New one')];
    const report = await applyPlanned(await makePlan(request(e.service.port, e.inventory, desired, 'by-name')), {
      port: e.service.port,
      inventory: e.inventory,
      concurrency: 2,
    });
    expect(report.results.find((r) => r.address === 'Dashboard/new')?.message).toMatch(
      /whose natural key is name:New one \(renamed\), not the name:New one that was sent/,
    );
    expect(e.inventory.get('Dashboard/new')).toBeUndefined();
  });

  it('after an update found the object gone (404 → re-create): the answer is proven the same way', async () => {
    const e = await estate([{ kind: 'handmade', commit: false }], 1);
    const anchorId = e.inventory.get('Dashboard/anchor')?.id ?? '';
    // Changed in the manifest, and deleted on the service between the read and the write.
    const desired = [dashboardRes('anchor', 'Anchor v2')];
    const planned = await makePlan(request(e.service.port, e.inventory, desired, 'by-name'));
    expect(planned.plan.steps[0]?.action).toBe('update');
    await collectionOf(e.service.inner, 'Dashboard').delete(anchorId);
    const report = await applyPlanned(planned, { port: e.service.port, inventory: e.inventory, concurrency: 1 });
    expect(report.results[0]?.message).toMatch(/existed before this run wrote anything/);
    expect(ownedIds(e.inventory.entries()).has(e.handmade[0] ?? '')).toBe(false);
  });

  it('when its answer is lost: the re-list takes only a new object, never one that existed', async () => {
    // The answer is lost and nothing was made; a hand-made object with that name appears in the re-list
    // (it existed before, under another name, and was renamed meanwhile): it is not taken.
    const e = await estate([{ kind: 'lost', commit: false }], 1);
    const desired = [...e.anchor, dashboardRes('new', 'New one')];
    const planned = await makePlan(request(e.service.port, e.inventory, desired, 'by-name'));
    await collectionOf(e.service.inner, 'Dashboard').update(e.handmade[0] ?? '', { name: 'New one', tiles: [] });
    const report = await applyPlanned(planned, { port: e.service.port, inventory: e.inventory, concurrency: 1 });
    const step = report.results.find((r) => r.address === 'Dashboard/new');
    // Not found among new objects: sent again (honestly answered), and that one is owned.
    expect(step?.outcome).toBe('applied');
    expect(step?.id).not.toBe(e.handmade[0]);
    expect(e.inventory.get('Dashboard/new')?.id).toBe(step?.id);
    expect(e.service.createdForObsync.has(step?.id ?? '')).toBe(true);
  });
});

describe('property: whatever the service answers', () => {
  it('no id that existed before a create becomes owned, and prune deletes only what obsync created', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(answerArb, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom<AdoptPolicy>('by-name', 'explicit'),
        async (script, count, handmadeCount, adopt) => {
          // A copy: the service consumes its script, and a counterexample must show it whole.
          const e = await estate([...script], handmadeCount);
          const declared = [...e.anchor];
          for (let i = 0; i < count; i++) declared.push(dashboardRes(`d${i}`, `Declared ${i}`), alertRes(`a${i}`, `d${i}`));
          for (let run = 0; run < 2; run++) {
            await applyPlanned(await makePlan(request(e.service.port, e.inventory, declared, adopt)), {
              port: e.service.port,
              inventory: e.inventory,
              concurrency: 2,
            });
            // An answer naming an id that exists nowhere is owned as a phantom (it plans as gone and is created again);
            // every owned id that is an object on the service is one obsync created.
            const onService = await allIds(e.service.inner);
            for (const entry of e.inventory.entries()) {
              const id = entry.id;
              if (entry.status !== 'owned' || id === null || e.ownedBefore.has(id)) continue;
              expect(e.before.has(id), `owned ${id}, which existed before`).toBe(false);
              if (!onService.has(id)) continue;
              expect(e.service.createdForObsync.has(id), `owned ${id}, which obsync did not create`).toBe(true);
              const ofKind = new Set(((await e.service.inner.collection(entry.kind)?.list()) ?? []).map((o) => o.id));
              expect(ofKind.has(id), `owned ${id} as ${entry.kind}/${entry.name}, an object of another kind`).toBe(true);
            }
          }
          // Every declared object but the anchor goes: prune deletes what obsync created, nothing else.
          const beforePrune = await allIds(e.service.inner);
          const pruned = await applyPlanned(await makePlan(request(e.service.inner, e.inventory, e.anchor, adopt, true)), {
            port: e.service.inner,
            inventory: e.inventory,
            concurrency: 2,
          });
          expect(pruned.summary.failed).toBe(0);
          const after = await allIds(e.service.inner);
          for (const id of beforePrune)
            if (!after.has(id)) expect(e.service.createdForObsync.has(id), `prune deleted ${id}, which obsync did not create`).toBe(true);
          for (const id of e.before) expect(after.has(id), `${id} existed before and is gone`).toBe(true);
        },
      ),
      {
        numRuns: 100,
        // Found by this property: an alert's create answered with the id of a dashboard whose own create was refused.
        examples: [[[{ kind: 'honest' }, { kind: 'renamed' }, { kind: 'earlier-create', commit: false }], 2, 1, 'by-name']],
      },
    );
  });
});

describe('a pending entry (a create whose answer was lost) under adopt: explicit', () => {
  function pendingEstate() {
    const inner = inProcessPort(createObservabilityDomain());
    const inventory = memoryInventory('t');
    const plan = (desired: DesiredResource[]) => makePlan(request(inner, inventory, desired, 'explicit'));
    /** What the applier records just before its POST, from the plan's create step. */
    const pendingOf = async (res: DesiredResource, extra: Partial<InventoryEntry> = {}) => {
      const step = (await plan([res])).plan.steps[0];
      if (step?.action !== 'create' || !step.payload) throw new Error('expected a create');
      await inventory.put({
        kind: res.kind,
        name: res.name,
        id: null,
        status: 'pending',
        naturalKey: dashboard.bodyKey?.(step.payload) ?? '',
        ...(step.record?.specHash ? { specHash: step.record.specHash } : {}),
        updatedAt: new Date().toISOString(),
        ...extra,
      });
      return step.payload;
    };
    return { inner, inventory, plan, pendingOf };
  }

  it('is resolved to the object its create made: new, with the key it was sent with, as it was sent', async () => {
    const { inner, plan, pendingOf } = pendingEstate();
    const res = dashboardRes('x', 'Foo');
    const payload = await pendingOf(res);
    const made = await collectionOf(inner, 'Dashboard').create(payload);
    const { plan: p } = await plan([res]);
    expect(p.diagnostics).toEqual([]);
    expect(p.steps.map((s) => [s.address, s.action, s.id, s.adopt])).toEqual([['Dashboard/x', 'noop', made.id, true]]);
  });

  it('is never resolved to a hand-made object the manifest was pointed at since (another name)', async () => {
    const { inner, plan, pendingOf } = pendingEstate();
    await pendingOf(dashboardRes('x', 'Foo'));
    const bar = await collectionOf(inner, 'Dashboard').create({ name: 'Bar', tiles: [] });
    const { plan: p } = await plan([dashboardRes('x', 'Bar')]);
    expect(p.steps).toEqual([]);
    expect(p.diagnostics.map((d) => d.code)).toEqual(['adoption-not-allowed']);
    expect(p.diagnostics[0]?.message).toContain(`obsync import Dashboard/x ${bar.id}`);
  });

  it('is never resolved to a lookalike made by hand after the crash (not what was sent)', async () => {
    const { inner, plan, pendingOf } = pendingEstate();
    const res = dashboardRes('x', 'Foo');
    await pendingOf(res);
    const lookalike = await collectionOf(inner, 'Dashboard').create({ name: 'Foo', tiles: [] });
    const { plan: p } = await plan([res]);
    expect(p.steps).toEqual([]);
    expect(p.diagnostics.map((d) => d.code)).toEqual(['pending-unproven']);
    expect(p.diagnostics[0]?.message).toMatch(/cannot prove that create made it: it differs from what was sent in tileOrder, tiles.lat/);
    expect(p.diagnostics[0]?.message).toContain(`obsync import Dashboard/x ${lookalike.id}`);
  });

  it('is never resolved to an object that already had its key when the create was sent', async () => {
    const { inner, plan, pendingOf } = pendingEstate();
    const res = dashboardRes('x', 'Foo');
    const twin = await collectionOf(inner, 'Dashboard').create({ name: 'Twin', tiles: [] });
    const body = await pendingOf(res, { preexisting: [twin.id] });
    // The object that existed is made identical to what was sent: still not obsync's create.
    await collectionOf(inner, 'Dashboard').update(twin.id, body);
    const { plan: p } = await plan([res]);
    expect(p.steps).toEqual([]);
    expect(p.diagnostics.map((d) => d.code)).toEqual(['adoption-not-allowed']);
  });
});

describe('the pending entry a create writes before its POST', () => {
  it('names the objects that already had its natural key, so a later run never resolves to them', async () => {
    const inner = inProcessPort(createObservabilityDomain());
    const inventory = memoryInventory('t');
    const first = [dashboardRes('a', 'Same name')];
    await applyPlanned(await makePlan(request(inner, inventory, first, 'by-name')), { port: inner, inventory, concurrency: 1 });
    const owned = inventory.get('Dashboard/a')?.id;
    const puts: InventoryEntry[] = [];
    const recording = { ...inventory, put: (e: InventoryEntry) => (puts.push(e), inventory.put(e)) };
    const both = [...first, dashboardRes('b', 'Same name')];
    await applyPlanned(await makePlan(request(inner, recording, both, 'by-name')), { port: inner, inventory: recording, concurrency: 1 });
    expect(puts.find((e) => e.name === 'b' && e.status === 'pending')).toMatchObject({
      naturalKey: 'name:Same name',
      preexisting: [owned],
    });
    expect(inventory.get('Dashboard/b')).toMatchObject({ status: 'owned' });
    expect(inventory.get('Dashboard/b')).not.toHaveProperty('preexisting');
  });
});
