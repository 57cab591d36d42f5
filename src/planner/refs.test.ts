import { describe, expect, it } from 'vitest';
import { IdMap } from '../core/id-map.js';
import type { LiveState } from '../core/live.js';
import type { Address } from '../core/plan.js';
import { PlanRefs } from './refs.js';

const objects: Record<string, { id: string; name: string }[]> = {
  Dashboard: [
    { id: 'd-managed', name: 'Checkout service' },
    { id: 'd-hand', name: 'Made by hand' },
  ],
  Webhook: [
    { id: 'w-1', name: 'ops-slack' },
    { id: 'w-2', name: 'twin' },
    { id: 'w-3', name: 'twin' },
  ],
};
const live: LiveState = { objects: (kind) => objects[kind] ?? [], versionOf: () => undefined };

function refs(planned: (a: Address) => boolean): { refs: PlanRefs; ids: IdMap } {
  const ids = new IdMap();
  ids.set('Dashboard/checkout', 'Dashboard', 'd-managed', new Map([['p99', 't-1']]));
  const r = new PlanRefs(live, [{ kind: 'Dashboard', name: 'checkout', address: 'Dashboard/checkout' }], planned, ids);
  return { refs: r, ids };
}

describe('references, resolved the same way for every kind', () => {
  it('name a declared object of a managed kind: a placeholder when it is planned in this run, its id otherwise', () => {
    const planned = refs(() => true).refs;
    planned.startObject();
    expect(planned.ref('Dashboard', 'checkout')).toEqual({ ok: true, token: 'checkout', id: 'd-managed' });
    expect(planned.wire('Dashboard', 'checkout')).toEqual({ $ref: 'Dashboard/checkout' });
    expect(planned.wire('Dashboard', 'checkout', 'p99')).toEqual({ $ref: 'Dashboard/checkout', $part: 'p99' });
    expect(planned.usedAddresses()).toEqual(['Dashboard/checkout']);
    const outside = refs(() => false).refs;
    expect(outside.wire('Dashboard', 'checkout')).toBe('d-managed');
    expect(outside.wire('Dashboard', 'checkout', 'p99')).toBe('t-1');
  });

  it('fall back to one unmanaged live object by display name, compared by id', () => {
    const { refs: r } = refs(() => true);
    expect(r.ref('Dashboard', 'Made by hand')).toEqual({ ok: true, token: { id: 'd-hand', name: 'Made by hand' }, id: 'd-hand' });
    expect(r.wire('Dashboard', 'Made by hand')).toBe('d-hand');
    // The live side's token of the same id is the same, so the two compare equal.
    expect(r.token('Dashboard', 'd-hand')).toEqual({ id: 'd-hand', name: 'Made by hand' });
    expect(r.token('Dashboard', 'd-managed')).toBe('checkout');
  });

  it('name unmanaged objects of a managed kind by their unique display name, compared by id, and refuse to guess between twins', () => {
    const { refs: r } = refs(() => true);
    expect(r.ref('Webhook', 'ops-slack')).toEqual({ ok: true, token: { id: 'w-1', name: 'ops-slack' }, id: 'w-1' });
    expect(r.ref('Webhook', { id: 'w-1' })).toEqual({ ok: true, token: { id: 'w-1', name: 'ops-slack' }, id: 'w-1' });
    expect(r.ref('Webhook', 'twin')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/2 webhooks are named 'twin'.*\{id: \.\.\.\}/) as unknown,
    });
    // Twins carry no name: the id alone says which.
    expect(r.token('Webhook', 'w-2')).toEqual({ id: 'w-2' });
    expect(r.ref('Webhook', 'nope')).toEqual({ ok: false, error: "webhook 'nope' does not exist on the target" });
  });

  it("suggest the closest name when a reference names nothing, as validate does: live names, and the manifests' own", () => {
    const { refs: r } = refs(() => true);
    expect(r.ref('Webhook', 'ops-slak')).toEqual({
      ok: false,
      error: "webhook 'ops-slak' does not exist on the target — did you mean 'ops-slack'?",
    });
    expect(r.ref('Dashboard', 'chekout')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/ — did you mean 'checkout'\?$/) as unknown,
    });
    expect(r.ref('Dashboard', 'Made by hnd')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/ — did you mean 'Made by hand'\?$/) as unknown,
    });
    expect(r.part('Dashboard', 'chekout', 'p99')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Dashboard\/chekout is not declared, .* — did you mean 'checkout'\?$/) as unknown,
    });
  });
});
