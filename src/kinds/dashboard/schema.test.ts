import { describe, expect, it } from 'vitest';
import { dashboardSpecSchema, slugify } from './schema.js';

const lineTile = {
  name: 'p99 latency',
  x: 0,
  y: 0,
  w: 12,
  h: 4,
  config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'quantile', level: 0.99, valueExpression: 'Duration' }] },
};
const spec = (tiles: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'Checkout', tiles, ...extra });
const issues = (input: unknown) => {
  const r = dashboardSpecSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message, code: i.code }));
};

describe('dashboard spec schema', () => {
  it('defaults a tile key to the slug of its name and keeps references by name', () => {
    const out = dashboardSpecSchema.parse(spec([lineTile, { ...lineTile, key: 'errors', name: 'Errors', y: 4 }]));
    expect(out.tiles.map((t) => t.key)).toEqual(['p99-latency', 'errors']);
    expect(out.tiles[0]?.config).toMatchObject({ source: 'Traces' });
    expect(slugify('  Req/s (5xx) ')).toBe('req-s-5xx');
  });

  it('accepts raw SQL configs with a connection by name or id', () => {
    const sql = {
      name: 'q',
      x: 0,
      y: 0,
      w: 6,
      h: 2,
      config: { configType: 'sql', displayType: 'table', connection: { id: 'abc' }, sqlTemplate: 'SELECT 1' },
    };
    expect(issues(spec([sql]))).toEqual([]);
  });

  it('rejects duplicate tile keys, out-of-bound positions and unknown keys', () => {
    expect(issues(spec([lineTile, { ...lineTile, y: 4 }]))).toContainEqual(
      expect.objectContaining({ path: 'tiles.1.key', message: expect.stringContaining("duplicate tile key 'p99-latency'") as string }),
    );
    expect(issues(spec([{ ...lineTile, x: 24 }]))[0]).toMatchObject({ path: 'tiles.0.x', code: 'too_big' });
    expect(issues(spec([{ ...lineTile, w: 0 }]))[0]).toMatchObject({ path: 'tiles.0.w', code: 'too_small' });
    expect(issues(spec([{ ...lineTile, id: 'abc' }]))[0]).toMatchObject({ path: 'tiles.0', code: 'unrecognized_keys' });
  });

  it('applies the server select-item and display rules', () => {
    const withSelect = (select: unknown[], displayType = 'line') =>
      spec([{ ...lineTile, config: { displayType, source: 'Logs', select } }]);
    expect(issues(withSelect([{ aggFn: 'count', valueExpression: 'x' }]))[0]?.message).toContain('cannot be used with count');
    expect(issues(withSelect([{ aggFn: 'avg' }]))[0]?.message).toContain('Value expression is required');
    expect(issues(withSelect([{ aggFn: 'avg', valueExpression: 'x', level: 0.9 }]))[0]?.message).toContain('only be used with quantile');
    expect(issues(withSelect([{ aggFn: 'count' }, { aggFn: 'count' }], 'number'))[0]?.message).toContain('single select item');
    expect(issues(withSelect([{ aggFn: 'count' }], 'heatmapx'))[0]).toMatchObject({
      path: 'tiles.0.config.displayType',
      code: 'invalid_union',
    });
    expect(issues(withSelect([{ aggFn: 'count' }, { aggFn: 'count' }], 'pie'))[0]?.path).toBe('tiles.0.config.select');
  });

  it('checks container references and filter modes', () => {
    expect(issues(spec([{ ...lineTile, containerId: 'c1' }]))[0]?.message).toBe('Tile references unknown containerId "c1"');
    const filter = { type: 'QUERY_EXPRESSION', name: 'svc', expression: 'ServiceName', source: 'Logs', isBroadcastEnabled: false };
    expect(issues(spec([], { filters: [filter] }))[0]?.message).toContain('must broadcast its value');
    expect(issues(spec([], { filters: [{ ...filter, isBroadcastEnabled: true }] }))).toEqual([]);
  });
});
