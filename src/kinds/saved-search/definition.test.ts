import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../core/resource.js';
import { diffCanonical } from '../../planner/diff.js';
import type { LiveView } from '../kind.js';
import type { RefContext, TokenContext } from '../refs.js';
import { savedSearch } from './definition.js';
import type { SavedSearchLive } from './model.js';
import { savedSearchSpecSchema } from './schema.js';

const refs: RefContext = {
  ref: (_kind, ref) =>
    ref === 'logs'
      ? { ok: true, token: 'logs', id: null }
      : ref === 'Traces'
        ? { ok: true, token: { id: 's-traces' }, id: 's-traces' }
        : { ok: false, error: `source '${typeof ref === 'string' ? ref : ref.id}' does not exist on the target` },
  part: () => ({ ok: false, error: 'no parts' }),
  wire: (_kind, ref) => (ref === 'logs' ? { $ref: 'Source/logs' } : ref === 'Traces' ? 's-traces' : null),
};
const tokens: TokenContext = { token: (_kind, id) => (id === 's-logs' ? 'logs' : { id }), partToken: (_k, _p, id) => ({ id }) };
const view: LiveView = { tokens, parts: undefined, expected: null, secrets: {}, fingerprint: () => '' };

function res(spec: unknown): DesiredResource<ReturnType<typeof savedSearchSpecSchema.parse>> {
  return {
    kind: 'SavedSearch',
    name: 'errors',
    address: 'SavedSearch/errors',
    labels: {},
    spec: savedSearchSpecSchema.parse(spec),
    source: { file: 's.yaml', line: 1, col: 1 },
  };
}

describe('saved search', () => {
  it("fills the service's defaults, so a stored search with them compares equal", () => {
    const want = savedSearch.canonicalDesired(
      res({ name: 'Errors', source: 'logs', where: 'level:error', filters: [{ condition: "ServiceName IN ('api')" }] }),
      refs,
      {},
    );
    if (!want.ok) throw new Error(want.errors.join());
    const live: SavedSearchLive = {
      id: 'ss1',
      name: 'Errors',
      sourceId: 's-logs',
      select: '',
      where: 'level:error',
      whereLanguage: 'lucene',
      orderBy: '',
      tags: [],
      filters: [{ type: 'sql', condition: "ServiceName IN ('api')" }],
    };
    expect(diffCanonical(savedSearch.canonicalLive(live, view), want.value)).toEqual([]);
    expect(diffCanonical(savedSearch.canonicalLive({ ...live, where: '' }, view), want.value).map((c) => c.path)).toEqual(['where']);
  });

  it('sends every field (PUT replaces the search), the source as a placeholder while it is planned in this run', () => {
    const plan = savedSearch.update(
      res({ name: 'Errors', source: 'logs' }),
      { id: 'ss1', name: 'Errors' },
      { refs, fingerprints: {}, changedPaths: ['where'], parts: undefined },
    );
    expect(plan).toEqual({
      payload: {
        sourceId: { $ref: 'Source/logs' },
        name: 'Errors',
        select: '',
        where: '',
        whereLanguage: 'lucene',
        orderBy: '',
        tags: [],
        filters: [],
      },
    });
  });

  it('is adopted by name and source, and waits for a source planned in this run', () => {
    expect(savedSearch.desiredKey(res({ name: ' Errors ', source: 'Traces' }), refs)).toBe('Errors|s-traces');
    expect(savedSearch.desiredKey(res({ name: 'Errors', source: 'logs' }), refs)).toBeNull();
    expect(savedSearch.liveKey({ id: 'ss1', name: 'Errors', sourceId: 's-traces' })).toBe('Errors|s-traces');
    expect(savedSearch.canonicalDesired(res({ name: 'Errors', source: 'nope' }), refs, {})).toEqual({
      ok: false,
      errors: ["source 'nope' does not exist on the target (at spec.source)"],
    });
  });
});
