import { describe, expect, it } from 'vitest';
import { envField, envPrefix, exportNames } from './names.js';

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
