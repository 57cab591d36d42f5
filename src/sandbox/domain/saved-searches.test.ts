import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from './seed.js';
import { demoDomain, failure, idOf, value } from './test-helpers.js';

describe('saved searches', () => {
  it('fills defaults, resets omitted fields on update and checks the source', () => {
    const d = demoDomain();
    const s = value(
      d.createSavedSearch({
        name: ' Slow ',
        sourceId: DEMO_IDS.traces,
        where: 'Duration:>1',
        tags: ['a'],
        filters: [{ condition: "ServiceName IN ('api')" }],
      }),
    );
    expect(s).toMatchObject({
      name: 'Slow',
      select: '',
      orderBy: '',
      whereLanguage: 'lucene',
      teamId: DEMO_IDS.team,
      filters: [{ type: 'sql', condition: "ServiceName IN ('api')" }],
    });
    const u = value(d.updateSavedSearch(idOf(s), { name: 'Slow', sourceId: DEMO_IDS.traces }));
    expect(u).toMatchObject({ where: '', tags: [], filters: [] });
    expect(failure(d.createSavedSearch({ name: 'x', sourceId: 'abcabcabcabcabcabcabcabc' })).message).toBe(
      'sourceId must be an existing source id',
    );
  });

  it('accepts only sidebar-renderable new filters', () => {
    const d = demoDomain();
    const make = (condition: string) => d.createSavedSearch({ name: 'f', sourceId: DEMO_IDS.logs, filters: [{ condition }] });
    expect(make('Duration BETWEEN 1 AND 5').ok).toBe(true);
    // The real server's message (hyperdx v2/savedSearches.ts at b52a6fa8).
    expect(failure(make("ServiceName = 'api'")).message).toBe(
      'filters[0] must be a sidebar-renderable SQL predicate (e.g. "<column> IN (\'<value>\', ...)", "NOT ' +
        'IN (...)", or "BETWEEN <n> AND <n>"). ' +
        'Other shapes are only accepted on update when preserved unchanged from the stored saved search.',
    );
    expect(failure(make("a IN ('x') AND b IN ('y')")).status).toBe(400);
  });

  it('pages with meta', () => {
    const r = demoDomain().listSavedSearches({ limit: '1' });
    expect(r.ok && r.meta).toEqual({ total: 1, limit: 1, offset: 0 });
  });
});
