import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from './seed.js';
import { demoDomain, failure, idOf, lineTile, tileAlert, value } from './test-helpers.js';

describe('dashboards', () => {
  it('returns the server defaults on output and ignores tile ids on create', () => {
    const d = demoDomain();
    const created = value(d.createDashboard({ name: 'D', tiles: [lineTile('a', { id: 'mine' })] }, 'self-hosted'));
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    expect(created).toEqual({
      id: created.id,
      name: 'D',
      filters: [],
      tags: [],
      savedQuery: null,
      savedQueryLanguage: null,
      savedFilterValues: [],
      tiles: [
        {
          id: expect.stringMatching(/^[0-9a-f]{24}$/) as unknown,
          name: 'a',
          x: 0,
          y: 0,
          w: 6,
          h: 4,
          config: {
            displayType: 'line',
            sourceId: DEMO_IDS.logs,
            asRatio: false,
            fillNulls: true,
            select: [{ aggFn: 'count', where: '', whereLanguage: 'lucene', valueExpression: '' }],
          },
        },
      ],
    });
    expect((created.tiles as { id: string }[])[0]?.id).not.toBe('mine');
    expect(value(d.getDashboard(idOf(created)))).toEqual(created);
  });

  it('lists dashboards by name descending', () => {
    const d = demoDomain();
    for (const name of ['b', 'C', 'a']) value(d.createDashboard({ name, tiles: [] }, 'self-hosted'));
    expect(value(d.listDashboards()).map((x) => x.name)).toEqual(['b', 'a', 'C']);
  });

  it('keeps a tile id on update only when it already exists in that dashboard, and cascades alerts', () => {
    const d = demoDomain();
    const created = value(d.createDashboard({ name: 'D', tiles: [lineTile('a'), lineTile('b')] }, 'self-hosted'));
    const [a, b] = created.tiles as { id: string }[];
    if (!a || !b) throw new Error('two tiles expected');
    const alertA = value(d.createAlert(tileAlert(idOf(created), a.id)));
    const alertB = value(d.createAlert(tileAlert(idOf(created), b.id)));
    const updated = value(
      d.updateDashboard(
        idOf(created),
        { name: 'D', tiles: [lineTile('a', { id: a.id }), lineTile('c', { id: 'cccccccccccccccccccccccc' })] },
        'self-hosted',
      ),
    );
    const [ua, uc] = updated.tiles as { id: string }[];
    expect(ua?.id).toBe(a.id);
    expect(uc?.id).not.toBe(b.id);
    expect(d.getAlert(idOf(alertA)).ok).toBe(true);
    expect(failure(d.getAlert(idOf(alertB)))).toEqual({ status: 404, message: 'Alert not found' });
  });

  it('deletes the tile alerts with the dashboard and answers {} even when nothing exists', () => {
    const d = demoDomain();
    const created = value(d.createDashboard({ name: 'D', tiles: [lineTile('a')] }, 'self-hosted'));
    const tileId = (created.tiles as { id: string }[])[0]?.id ?? '';
    const alert = value(d.createAlert(tileAlert(idOf(created), tileId)));
    expect(value(d.deleteDashboard(idOf(created)))).toEqual({});
    expect(d.getAlert(idOf(alert)).ok).toBe(false);
    const missing = d.getDashboard(idOf(created));
    expect(!missing.ok && missing.error.selfHostedBody).toEqual({ type: 'text', text: 'Not Found' });
    const version = d.version;
    expect(value(d.deleteDashboard(idOf(created)))).toEqual({});
    expect(d.version).toBe(version);
  });

  it('rejects invalid tiles with the server message and changes nothing', () => {
    const d = demoDomain();
    const before = JSON.stringify(d.snapshot());
    expect(failure(d.createDashboard({ name: 'D', tiles: [lineTile('a', { x: 24 })] }, 'self-hosted')).message).toMatch(
      /^Body validation failed: tiles\.0\.x: /,
    );
    expect(
      failure(
        d.createDashboard(
          { name: 'D', tiles: [lineTile('a', { config: { displayType: 'line', sourceId: DEMO_IDS.logs, select: [{ aggFn: 'sum' }] } })] },
          'self-hosted',
        ),
      ).message,
    ).toBe(
      'Body validation failed: tiles.0.config.select.0.valueExpression: Value expression is required for non-count aggregation functions',
    );
    const unknown = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    expect(
      failure(
        d.createDashboard(
          { name: 'D', tiles: [lineTile('a', { config: { displayType: 'line', sourceId: unknown, select: [{ aggFn: 'count' }] } })] },
          'self-hosted',
        ),
      ),
    ).toEqual({ status: 400, message: `Could not find the following source IDs: ${unknown}` });
    expect(
      failure(d.createDashboard({ name: 'D', tiles: [lineTile('a', { id: 'x' }), lineTile('b', { id: 'x' })] }, 'self-hosted')).message,
    ).toContain('Duplicate tile ID: x.');
    expect(
      failure(d.createDashboard({ name: 'D', tiles: [], savedQuery: 'x', savedQueryLanguage: null }, 'self-hosted')).message,
    ).toContain('savedQueryLanguage cannot be null when savedQuery is provided');
    expect(JSON.stringify(d.snapshot())).toBe(before);
  });

  it('enforces filter ids: forbidden on create, required on update, kept only when known', () => {
    const d = demoDomain();
    const filter = { type: 'QUERY_EXPRESSION', name: 'svc', expression: 'ServiceName', sourceId: DEMO_IDS.logs };
    expect(failure(d.createDashboard({ name: 'D', tiles: [], filters: [{ ...filter, id: 'f' }] }, 'self-hosted')).status).toBe(400);
    const created = value(d.createDashboard({ name: 'D', tiles: [], filters: [filter] }, 'self-hosted'));
    const fid = String((created.filters as { id: string }[])[0]?.id);
    expect(failure(d.updateDashboard(idOf(created), { name: 'D', tiles: [], filters: [filter] }, 'self-hosted')).message).toContain(
      'filters.0.id',
    );
    const updated = value(
      d.updateDashboard(
        idOf(created),
        {
          name: 'D',
          tiles: [],
          filters: [
            { ...filter, id: fid },
            { ...filter, name: 'two', id: 'new' },
          ],
        },
        'self-hosted',
      ),
    );
    const ids = (updated.filters as { id: string }[]).map((f) => f.id);
    expect(ids[0]).toBe(fid);
    expect(ids[1]).toMatch(/^[0-9a-f]{24}$/);
    const kept = value(d.updateDashboard(idOf(created), { name: 'D2', tiles: [] }, 'self-hosted'));
    expect(kept.filters).toEqual(updated.filters);
  });

  it('hosted callers may not send a top-level id; self-hosted ones have it stripped', () => {
    const d = demoDomain();
    expect(failure(d.createDashboard({ id: 'x', name: 'D', tiles: [] }, 'hosted'))).toEqual({
      status: 400,
      message: "request body property can't be validated: id",
    });
    expect(d.createDashboard({ id: 'x', name: 'D', tiles: [] }, 'self-hosted').ok).toBe(true);
  });

  it('answers 404 text for an unknown dashboard update and 400 for a malformed id', () => {
    const d = demoDomain();
    const r = d.updateDashboard('bbbbbbbbbbbbbbbbbbbbbbbb', { name: 'D', tiles: [] }, 'self-hosted');
    expect(!r.ok && r.error.status === 404 && r.error.selfHostedBody.type === 'text').toBe(true);
    expect(failure(d.getDashboard('nope'))).toEqual({ status: 400, message: 'Params validation failed: id: Invalid ObjectId' });
  });

  it('validates without persisting', () => {
    const d = demoDomain();
    expect(value(d.validateDashboard({ name: 'D', tiles: [] }))).toMatchObject({ valid: true, errors: [] });
    const bad = value(d.validateDashboard({ tiles: 'nope' }));
    expect(bad.valid).toBe(false);
    expect(bad.normalized).toBeNull();
    expect(value(d.listDashboards())).toEqual([]);
  });

  it('converts legacy series tiles to config form and checks number tiles and formulas', () => {
    const d = demoDomain();
    const legacy = {
      name: 'L',
      x: 0,
      y: 0,
      w: 4,
      h: 4,
      series: [{ type: 'time', sourceId: DEMO_IDS.logs, aggFn: 'count', where: '', groupBy: ['a', 'b'] }],
    };
    const created = value(d.createDashboard({ name: 'D', tiles: [legacy] }, 'self-hosted'));
    expect((created.tiles as { config: unknown }[])[0]?.config).toMatchObject({ displayType: 'line', groupBy: 'a,b', fillNulls: true });
    const number = {
      displayType: 'number',
      sourceId: DEMO_IDS.logs,
      select: [{ aggFn: 'count' }, { aggFn: 'count' }],
      formulas: [{ expression: 'A / C' }],
    };
    expect(failure(d.createDashboard({ name: 'D', tiles: [lineTile('n', { config: number })] }, 'self-hosted')).message).toContain(
      'Unknown series "C"',
    );
  });
});

describe('dashboards: source-kind gates scoped like the real server (hyperdx v2/utils/dashboards.ts at b52a6fa8)', () => {
  const heatmap = (where: string) => ({
    name: 'h',
    x: 0,
    y: 0,
    w: 6,
    h: 4,
    config: { displayType: 'heatmap', sourceId: DEMO_IDS.traces, select: [{ valueExpression: 'Duration' }], where },
  });

  it('re-checks a heatmap only when it is new or moved to another source, not when its filter changes', () => {
    const d = demoDomain();
    const dash = value(d.createDashboard({ name: 'H', tiles: [heatmap('')] }, 'self-hosted'));
    const tileId = String((dash.tiles as { id: string }[])[0]?.id);
    const traces = value(d.getSource(DEMO_IDS.traces));
    value(d.updateSource(DEMO_IDS.traces, { ...traces, kind: 'log', defaultTableSelectExpression: '*' }));
    const edited = d.updateDashboard(idOf(dash), { name: 'H', tiles: [{ ...heatmap('level:error'), id: tileId }] }, 'self-hosted');
    expect(edited.ok).toBe(true);
    const added = failure(
      d.updateDashboard(idOf(dash), { name: 'H', tiles: [{ ...heatmap(''), id: tileId }, heatmap('')] }, 'self-hosted'),
    );
    expect(added.message).toBe(`Heatmap tiles require a Trace source. The following source IDs are not Trace sources: ${DEMO_IDS.traces}`);
  });
});
