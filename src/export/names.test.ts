import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { envField, envPrefix, exportNames, renames } from './names.js';

const names = (objects: { id: string; displayName: string }[], owned: Record<string, string> = {}) =>
  Object.fromEntries(exportNames(objects, 'dashboard', new Map(Object.entries(owned))));

describe('export names', () => {
  it('are the slug of the display name, accents folded, a fallback when nothing is left', () => {
    expect(
      names([
        { id: 'a', displayName: 'Checkout — Überblick (prod)' },
        { id: 'b', displayName: '🚀' },
      ]),
    ).toEqual({ a: 'checkout-uberblick-prod', b: 'dashboard' });
  });

  it('suffix every clashing name with a hash of its id, whatever else exists or in which order', () => {
    const one = names([
      { id: 'x1', displayName: 'Overview' },
      { id: 'x2', displayName: 'overview' },
      { id: 'y', displayName: 'Other' },
    ]);
    expect(one.y).toBe('other');
    expect(one.x1).toMatch(/^overview-[0-9a-f]{6}$/);
    expect(one.x2).toMatch(/^overview-[0-9a-f]{6}$/);
    expect(one.x1).not.toBe(one.x2);
    const reordered = names([
      { id: 'x2', displayName: 'overview' },
      { id: 'z', displayName: 'Overview' },
      { id: 'x1', displayName: 'Overview' },
    ]);
    expect(reordered.x1).toBe(one.x1);
    expect(reordered.x2).toBe(one.x2);
  });

  it('keep the name obsync owns an object under, and never give it to another', () => {
    const out = names(
      [
        { id: 'a', displayName: 'Checkout' },
        { id: 'b', displayName: 'Legacy' },
      ],
      { b: 'checkout' },
    );
    expect(out.b).toBe('checkout');
    expect(out.a).toMatch(/^checkout-[0-9a-f]{6}$/);
  });

  it('stay valid metadata.names however long the display name', () => {
    const long = names([
      { id: 'a', displayName: 'x'.repeat(400) },
      { id: 'b', displayName: 'x'.repeat(400) },
    ]);
    for (const n of Object.values(long)) expect(n.length).toBeLessThanOrEqual(253);
  });

  it('make environment variable names', () => {
    expect(`${envPrefix('SavedSearch', 'ops-slack-2')}_${envField('url')}`).toBe('OBSYNC_EXPORT_SAVED_SEARCH_OPS_SLACK_2_URL');
    expect(envField('source.kafka.credentials')).toBe('SOURCE_KAFKA_CREDENTIALS');
  });
});

describe('stable export names', () => {
  const alerts = (objects: { id: string; displayName: string }[], owned: Record<string, string> = {}, environment = 'staging') =>
    Object.fromEntries(exportNames(objects, 'alert', new Map(Object.entries(owned)), { environment, measures: true }));

  it("leave out an alert's measures and the target's name: the first threshold change does not make the name lie", () => {
    expect(alerts([{ id: 'a', displayName: 'Storefront p99 above 900 ms (staging)' }])).toEqual({ a: 'storefront-p99' });
    expect(alerts([{ id: 'a', displayName: 'Storefront p99 above 1.5s (staging)' }])).toEqual({ a: 'storefront-p99' });
    expect(alerts([{ id: 'a', displayName: 'Checkout errors 5xx not between 5 and 10 % on prod-eu' }], {}, 'prod-eu')).toEqual({
      a: 'checkout-errors-5xx-on',
    });
    expect(alerts([{ id: 'a', displayName: '900 ms' }])).toEqual({ a: '900-ms' });
    // Other kinds keep their numbers; every kind loses the environment.
    const boards = exportNames([{ id: 'd', displayName: 'Top 10 endpoints (staging)' }], 'dashboard', new Map(), {
      environment: 'staging',
    });
    expect(boards.get('d')).toBe('top-10-endpoints');
  });

  const word = fc.constantFrom('storefront', 'checkout', 'p99', 'latency', 'errors', '5xx', 'api', 'queue', 'depth');
  const measure = fc.tuple(
    fc.constantFrom('above', 'below', 'over', 'under', 'exceeds'),
    fc.oneof(fc.nat(100_000).map(String), fc.constant('0.5')),
    fc.constantFrom('ms', 's', '%', 'rps', ''),
  );
  const title = fc.tuple(fc.array(word, { minLength: 1, maxLength: 3 }), measure, fc.constantFrom('', '(staging)', 'staging'));

  it('are the same whatever the threshold, its unit word and the environment in the title', () => {
    fc.assert(
      fc.property(title, measure, ([words, m, env], other) => {
        const named = (t: readonly string[]) => alerts([{ id: 'x', displayName: [...words, ...t, env].join(' ') }]).x;
        expect(named(m)).toBe(named(other));
        expect(named(m)).toBe(words.join('-'));
      }),
      { numRuns: 150 },
    );
  });

  it('are deterministic, unique, valid and keep owned names, in any order, however many titles collide', () => {
    const object = fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), title });
    fc.assert(
      fc.property(fc.uniqueArray(object, { selector: (o) => o.id, maxLength: 12 }), fc.nat(), (objects, seed) => {
        const list = objects.map((o) => ({ id: o.id, displayName: [...o.title[0], ...o.title[1], o.title[2]].join(' ') }));
        const owned = Object.fromEntries(list.filter((_, i) => i % 3 === 0).map((o, i) => [o.id, `owned-${i}`]));
        const out = alerts(list, owned);
        const shuffled = [...list].sort((a, b) => ((a.id.charCodeAt(0) * seed) % 7) - ((b.id.charCodeAt(0) * seed) % 7));
        expect(alerts(shuffled, owned)).toEqual(out);
        const names = Object.values(out);
        expect(new Set(names).size).toBe(list.length);
        for (const n of names) expect(n).toMatch(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
        for (const [id, name] of Object.entries(owned)) expect(out[id]).toBe(name);
      }),
      { numRuns: 150 },
    );
  });

  it('say which owned objects are not under their stable name, and the name each would take', () => {
    const list = [
      { id: 'a', displayName: 'Storefront p99 above 900 ms (staging)' },
      { id: 'b', displayName: 'Checkout errors above 10 (staging)' },
    ];
    const owned = new Map([
      ['a', 'storefront-p99-above-900-ms-staging'],
      ['b', 'checkout-errors'],
    ]);
    expect(renames(list, 'alert', owned, { environment: 'staging', measures: true })).toEqual([
      { id: 'a', from: 'storefront-p99-above-900-ms-staging', to: 'storefront-p99' },
    ]);
  });
});
